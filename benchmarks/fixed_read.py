"""Figures, not pass/fail: Python CPU of a read through the ORM against the same read
through `kernel.fixed_read.FixedRead` (compiled once, then only bound), side by side in one
run, medians of `--rounds` rounds of `--calls` calls each (issue 26, point 1).

    .venv/bin/python benchmarks/fixed_read.py \\
        --database-url postgres://postgres@127.0.0.1:5432/specpact_bench_data_small

Read-only: it reads a generated database's first route, its user and its releases.
CPU is `time.process_time` of this process: the PostgreSQL server's time is not in it, so
the figure is what a web worker spends per query, which is what the floor ratio counts."""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# What the route page's releases table shows.
RELEASE_ROW = ("state", "gate_verdict", "created_at", "baseline_version__number", "candidate_version__number")


def _listed(build: Callable[..., Any], values: dict[str, Any]) -> list[Any]:
    return list(build(**values))


def _cpu_ms(call: Callable[[], Any], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - start) / calls * 1000


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
    import django

    django.setup()
    from accounts_app.models import UserRole
    from contracts_app.models import Route
    from kernel.fixed_read import FixedRead
    from releases_app.models import Release

    route = Route.objects.order_by("pk").first()
    role = UserRole.objects.order_by("pk").first()
    if route is None or role is None:
        sys.exit("no route or user role here: point --database-url at a generated database")

    def route_named(slug: str) -> Any:
        return Route.objects.with_active_version().filter(slug=slug).order_by("pk")[:1]

    def role_row(user_id: int) -> Any:
        return UserRole.objects.filter(user_id=user_id)

    def release_rows(route_id: int) -> Any:
        return (
            Release.objects.filter(route_id=route_id)
            .select_related("baseline_version", "candidate_version")
            .only(*RELEASE_ROW)
            .order_by("-id")[:10]
        )

    reads: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
        ("a route by slug, with its active version", route_named, {"slug": route.slug}),
        ("a user's role row", role_row, {"user_id": role.user_id}),
        ("a route's ten newest releases, two joins", release_rows, {"route_id": route.pk}),
    ]
    print(f"{'read':<44} {'ORM ms':>8} {'fixed ms':>9} {'fixed / ORM':>12}   (CPU per call, medians)")
    for name, build, values in reads:
        fixed = FixedRead(build, **{key: type(value) for key, value in values.items()})
        same = [x.pk for x in fixed(**values)] == [x.pk for x in build(**values)]
        assert same, f"{name}: the fixed read's rows differ from the ORM's"
        orm_ms, fixed_ms = [], []
        for _ in range(args.rounds):  # interleaved: the machine's noise falls on both alike
            orm_ms.append(_cpu_ms(functools.partial(_listed, build, values), args.calls))
            fixed_ms.append(_cpu_ms(functools.partial(fixed, **values), args.calls))
        orm, quick = statistics.median(orm_ms), statistics.median(fixed_ms)
        print(f"{name:<44} {orm:8.3f} {quick:9.3f} {quick / orm:12.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
