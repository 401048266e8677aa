"""Figures, not pass/fail: what a result upload costs per raw MiB, and the web worker's
memory after big uploads (issue 26 point 5).

    DATABASE_URL=postgres://…/specpact_bench .venv/bin/python benchmarks/result_upload.py
    … --sizes 1,4,15 --runs 3 --rss-uploads 10 --rss-mib 15

1. Seconds per raw MiB, in this process, for results of each size (built by
   benchmarks/result_upload_data.py: the harness's own models, realistic values), each
   uploaded RUNS times to a run of its own, medians:
   - `replaced`: the path this change replaced, as it ran: the whole body read at once (the
     request guard's `request.read`), `json.loads` of its decoded text and the safety walk
     (`load_json`), the key check (`ResultIn`), then `run_result_submit` (the digest walked
     piece by piece, the payload serialized again by the JSONField, stored pglz-compressed:
     the column is switched back to pglz for these, and to lz4 again afterwards).
   - `streamed`: the path the view runs now: the body read in chunks under its limit
     (`kernel.api.body.read_capped`), `load_json`, `ResultIn`, `run_result_upload` (one
     canonical serialization that gives the digest and is the text stored, lz4 TOAST),
     then `release_memory(database=True)`.
   Both run the same checks and store the same row; the ratio is streamed / replaced.
2. RSS of a gunicorn sync worker (the production server, benchmarks/control_plane/server.py)
   that receives RSS_UPLOADS PUTs of an RSS_MIB result over HTTP: its RSS once warm (one
   small upload done), after each upload, and its peak; once as the view runs now, once
   with `release_memory` disabled (the same code otherwise) to show what it gives back.

Every upload stores a result: use a bench database (`make bench` gives one).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MIB = 1024 * 1024


def no_release_app(environ: dict[str, Any], start_response: Any) -> Any:
    """The WSGI application with the view's `release_memory` made a no-op (part 2's
    comparison), for gunicorn: `benchmarks.result_upload:no_release_app`."""
    import importlib

    from specpact.wsgi import application  # sets Django up: only then can the view be imported

    runs_view = importlib.import_module("benchmarks_app.api.runs")
    setattr(runs_view, "release_memory", lambda **_: None)  # noqa: B010  (a module attribute, by name)
    return application(environ, start_response)


class _BodyRequest:
    """What `read_capped` reads: a Django request's META and read(), over `body`."""

    def __init__(self, body: bytes) -> None:
        self.META = {"CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json"}
        self._stream = io.BytesIO(body)

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)


def _set_compression(method: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE benchmarks_app_runresult ALTER COLUMN payload SET COMPRESSION {method}")


def _replaced(body: bytes, spec: Any, worker: Any) -> None:
    from benchmarks_app.api.serializers import ResultIn
    from benchmarks_app.services.lifecycle import run_result_submit
    from kernel.api.parsers import load_json

    raw = _BodyRequest(body).read(len(body))  # the guard's request.read(declared)
    payload = load_json(raw)
    del raw
    ResultIn(data=payload).is_valid(raise_exception=True)
    run_result_submit(run_id=spec.run_id, worker=worker, attempt=spec.attempt, payload=payload)


def _streamed(body: bytes, spec: Any, worker: Any) -> None:
    from benchmarks_app.api.serializers import ResultIn
    from benchmarks_app.services.lifecycle import run_result_upload
    from kernel.api.body import read_capped
    from kernel.api.parsers import load_json
    from kernel.memory import release_memory

    raw = read_capped(_BodyRequest(body), 80 * MIB, "RUN_RESULT_MAX_BYTES")
    payload = load_json(raw)
    del raw
    ResultIn(data={"attempt": payload["attempt"]}).is_valid(raise_exception=True)  # as the view
    run_result_upload(run_id=spec.run_id, worker=worker, attempt=spec.attempt, payload=payload)
    del payload
    release_memory(database=True)


def per_mib(sizes: list[float], runs: int) -> list[dict[str, float]]:
    from benchmarks.result_upload_data import Bench, body_for, outcome, requests_for

    bench = Bench()
    rows = []
    for mib in sizes:
        n = requests_for(mib)
        template = outcome(bench.claimed(n))
        times: dict[str, list[float]] = {"replaced": [], "streamed": []}
        raw_mib = 0.0
        for _ in range(runs):
            for name, path, method in (("replaced", _replaced, "pglz"), ("streamed", _streamed, "lz4")):
                _set_compression(method)
                spec = bench.claimed(n)
                body = body_for(template, spec)
                raw_mib = len(body) / MIB
                gc.collect()
                started = time.perf_counter()
                path(body, spec, bench.worker)
                times[name].append(time.perf_counter() - started)
        _set_compression("lz4")
        old, new = statistics.median(times["replaced"]), statistics.median(times["streamed"])
        rows.append({"mib": raw_mib, "replaced_s": old, "streamed_s": new})
    return rows


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _gunicorn_rss(app: str, uploads: int, mib: float, database_url: str) -> dict[str, Any]:
    """One gunicorn sync worker serving `app`: RSS warm, after each upload, and HTTP s/MiB."""
    import subprocess

    import httpx
    import psutil

    from benchmarks.control_plane.server import PROXY_HEADERS, environment, free_port
    from benchmarks.result_upload_data import Bench, body_for, outcome, requests_for

    bench = Bench()
    n = requests_for(mib)
    template = outcome(bench.claimed(n))
    small = outcome(bench.claimed(1))
    port = free_port()
    with tempfile.TemporaryDirectory() as var, tempfile.TemporaryFile() as log:
        env = environment(database_url, Path(var), {})
        argv = [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}", "--workers", "1",
                "--worker-class", "sync", "--timeout", "300", "--log-level", "warning"]  # fmt: skip
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
        base = f"http://127.0.0.1:{port}"
        headers = {
            **PROXY_HEADERS,
            "Authorization": f"Token {bench.token}",
            "Content-Type": "application/json",
        }
        try:
            _wait_answering(base, process)
            (child,) = psutil.Process(process.pid).children()

            def put(spec: Any, body: bytes) -> float:
                started = time.perf_counter()
                answer = httpx.put(f"{base}/api/v1/runs/{spec.run_id}/result", content=body, headers=headers,
                                   timeout=300)  # fmt: skip
                if answer.status_code != 201:
                    log.seek(0)
                    server_log = log.read().decode(errors="replace")[-3000:]
                    raise RuntimeError(
                        f"upload answered {answer.status_code}: {answer.text[:300]}\n{server_log}"
                    )
                return time.perf_counter() - started

            spec = bench.claimed(1)
            put(spec, body_for(small, spec))
            warm = _rss_mib(child.pid)
            after, seconds, raw_mib = [], [], 0.0
            for _ in range(uploads):
                spec = bench.claimed(n)
                body = body_for(template, spec)
                raw_mib = len(body) / MIB
                seconds.append(put(spec, body))
                after.append(_rss_mib(child.pid))
            peak = _peak_rss_mib(child.pid)
        finally:
            process.terminate()
            process.wait(30)
    return {"warm": warm, "after": after, "peak": peak, "s_per_mib": statistics.median(seconds) / raw_mib,
            "mib": raw_mib}  # fmt: skip


def _wait_answering(base: str, process: Any, limit_s: float = 60) -> None:
    """Any answer from the API will do (pages need collected static files, DEBUG off)."""
    import httpx

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            httpx.get(base + "/api/v1/runs", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise RuntimeError(f"gunicorn did not answer on {base} within {limit_s} s")


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,4,15", help="result sizes, raw MiB")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rss-uploads", type=int, default=10)
    parser.add_argument("--rss-mib", type=float, default=15.0)
    args = parser.parse_args()
    database_url = os.environ["DATABASE_URL"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
    # No broker: a finished run's announcement waits in the outbox (nothing here consumes it).
    os.environ["CELERY_BROKER_URL"] = "redis://127.0.0.1:9/0"
    import logging

    import django

    django.setup()
    from django.conf import settings

    # As production runs (the gunicorn part has DEBUG off too): with DEBUG on, every query's
    # SQL, the whole result's text included, is decoded and kept in connection.queries.
    settings.DEBUG = False
    logging.disable(logging.WARNING)

    rows = per_mib([float(s) for s in args.sizes.split(",")], args.runs)
    print(f"result upload, in one process, medians of {args.runs} runs (s per raw MiB)")
    print(f"{'MiB':>6} {'replaced s':>11} {'s/MiB':>7} {'streamed s':>11} {'s/MiB':>7} {'ratio':>6}")
    for r in rows:
        print(
            f"{r['mib']:>6.1f} {r['replaced_s']:>11.2f} {r['replaced_s'] / r['mib']:>7.3f} "
            f"{r['streamed_s']:>11.2f} {r['streamed_s'] / r['mib']:>7.3f} "
            f"{r['streamed_s'] / r['replaced_s']:>6.2f}"
        )
    for label, app in (
        ("as the view runs (release_memory)", "specpact.wsgi:application"),
        ("release_memory disabled", "benchmarks.result_upload:no_release_app"),
    ):
        got = _gunicorn_rss(app, args.rss_uploads, args.rss_mib, database_url)
        after = " ".join(f"{a:.0f}" for a in got["after"])
        print(
            f"gunicorn sync worker, {args.rss_uploads} uploads of {got['mib']:.1f} MiB, {label}: "
            f"{got['s_per_mib']:.3f} s/MiB over HTTP; RSS warm {got['warm']:.0f} MiB, after each: {after}; "
            f"end - warm {got['after'][-1] - got['warm']:+.0f} MiB; peak {got['peak']:.0f} MiB"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
