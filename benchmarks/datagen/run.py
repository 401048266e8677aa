"""Fill a freshly migrated PostgreSQL database with issue 16's data.

    createdb -h 127.0.0.1 -U postgres specpact_bench_datagen
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/specpact_bench_datagen .venv/bin/python manage.py migrate
    .venv/bin/python benchmarks/datagen/run.py \\
        --database-url postgres://postgres@127.0.0.1:5432/specpact_bench_datagen --scale full

A script rather than a management command: the generator is benchmark tooling, not part
of the product (`benchmarks/` is not in the installed package), so no production
`manage.py` can be pointed at a real database and fill it with made-up releases.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", required=True, help="postgres://… of a migrated, empty database")
    parser.add_argument(
        "--scale",
        choices=("full", "small", "x10"),
        default="full",
        help="x10: ten times full (benchmarks/RESULTS.md has its projected time: hours on two cores)",
    )
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument(
        "--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)), help="worker processes"
    )
    parser.add_argument(
        "--validate-every",
        type=int,
        default=200,
        help="check every Nth result with the app's upload check (0: none)",
    )
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)

    # Django reads the same database, so that the app's own chain check can run at the end.
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
    # Not this folder first (its modules would shadow the standard library's): the repository.
    sys.path[0] = str(ROOT)
    import django

    django.setup()
    from audit_app.chain import verify_chain
    from benchmarks.datagen.generate import generate
    from benchmarks.datagen.scale import SCALES

    started = time.perf_counter()
    report = generate(
        _conninfo(args.database_url),
        SCALES[args.scale],
        seed=args.seed,
        jobs=args.jobs,
        validate_every=args.validate_every,
    )
    wall = time.perf_counter() - started
    t = time.perf_counter()
    report.chain = dict(verify_chain())
    report.seconds["verify_chain"] = round(time.perf_counter() - t, 2)
    out = {**report.__dict__, "wall_s": round(wall, 1)}
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0 if report.chain.get("valid") else 1


def _conninfo(url: str) -> str:
    """psycopg takes the postgres:// URL as it is."""
    return url


if __name__ == "__main__":
    sys.exit(main())
