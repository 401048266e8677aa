"""Figures, not pass/fail: the peak memory of a workload upload at 1x, 4x and 16x a
reference size, uploads of short lines (the worst case for memory per byte: ~40 bytes a
line, one record each).

    DATABASE_URL=postgres://…/specpact_bench .venv/bin/python benchmarks/workload_upload_rss.py
    … --reference-mib 1 --factors 1,4,16 --runs 3

Each upload goes through the real service (`workload_upload`: the streamed import, the
statistics, the canonical form and its digest, the content row on the database) in a fresh
subprocess, so that each peak (ru_maxrss) is that upload's alone. `idle` is the same
subprocess's peak once Django is set up, before the upload; `upload` is what the upload
added to it. Medians of RUNS runs, and each size's ratio to the reference size's. Every
run stores a version under a name of its own (workloads are immutable): use a bench
database.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
    import django

    django.setup()
    from workloads_app.services import UploadOptions, workload_upload

    idle = _peak_mib()
    started = time.perf_counter()
    with open(path, "rb") as file:
        upload = workload_upload(
            name=f"bench-rss-{uuid.uuid4().hex[:12]}", raw=file, options=UploadOptions(), actor=None
        )
    print(
        json.dumps(
            {
                "seconds": time.perf_counter() - started,
                "idle_mib": idle,
                "peak_mib": _peak_mib(),
                "requests": upload.version.requests,
            }
        )
    )


def write_upload(path: Path, size: int) -> int:
    """Short lines up to `size` bytes: one prompt of a few words each; returns the lines."""
    lines = written = 0
    with path.open("wb") as out:
        while written < size:
            line = (
                json.dumps({"prompt": f"question {lines}: what is {lines % 997} times 7?"}).encode() + b"\n"
            )
            out.write(line)
            written += len(line)
            lines += 1
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference-mib", type=float, default=1.0)
    parser.add_argument("--factors", default="1,4,16")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    factors = [int(f) for f in args.factors.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for factor in factors:
            path = Path(tmp) / f"upload-{factor}.jsonl"
            lines = write_upload(path, int(args.reference_mib * factor * MIB))
            runs = []
            for _ in range(args.runs):
                out = subprocess.run(
                    [sys.executable, __file__, "--child", str(path)],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                )
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            rows.append(
                {
                    "factor": factor,
                    "mib": path.stat().st_size / MIB,
                    "lines": lines,
                    "idle_mib": statistics.median(r["idle_mib"] for r in runs),
                    "peak_mib": statistics.median(r["peak_mib"] for r in runs),
                    "upload_mib": statistics.median(r["peak_mib"] - r["idle_mib"] for r in runs),
                    "seconds": statistics.median(r["seconds"] for r in runs),
                }
            )
    base = rows[0]
    print(f"workload upload, short lines; medians of {args.runs} runs, each in a fresh process")
    print(
        f"{'size':>6} {'MiB':>7} {'lines':>9} {'idle MiB':>9} {'peak MiB':>9} {'upload MiB':>11} "
        f"{'x size':>7} {'x peak':>7} {'x upload':>9} {'s':>7} {'x time':>7}"
    )
    for r in rows:
        ratios = (r["mib"] / base["mib"], r["peak_mib"] / base["peak_mib"])
        upload_ratio = r["upload_mib"] / max(base["upload_mib"], 0.1)
        print(
            f"{r['factor']:>5}x {r['mib']:>7.1f} {r['lines']:>9} {r['idle_mib']:>9.1f} {r['peak_mib']:>9.1f} "
            f"{r['upload_mib']:>11.1f} {ratios[0]:>7.1f} {ratios[1]:>7.2f} {upload_ratio:>9.2f} "
            f"{r['seconds']:>7.2f} {r['seconds'] / base['seconds']:>7.1f}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
