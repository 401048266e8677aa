"""Registered workers and runs for the worker-protocol tests, through the real services."""

from __future__ import annotations

from typing import Any

from benchmarks_app.services.workers import bootstrap_token_create, worker_register

# Given endpoints that nothing answers: for runs that are created, claimed, swept or
# relayed in a test but never benchmarked.
UNREACHABLE_ENDPOINTS = {
    "baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
    "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"},
}
SMALL_LOAD = {"concurrency": [1], "requests_per_level": 2, "max_tokens": 8}

HARDWARE = {
    "hostname": "gpu-box-1",
    "cpu_model": "AMD EPYC",
    "cpu_cores": 16,
    "memory_gib": 128.0,
    "gpus": [],
}
GPU_HARDWARE = {
    **HARDWARE,
    "gpus": [{"name": "NVIDIA H200", "memory_total_gib": 139.8, "driver": "570.1", "cuda": "12.8"}],
}


def openai_run(
    versions: tuple[Any, Any],
    *,
    actor: Any = None,
    endpoints: dict[str, Any] = UNREACHABLE_ENDPOINTS,
    **placement: Any,
) -> Any:
    """A standalone `openai` run of the extraction lane between the two `versions`, against
    `endpoints` (by default ones nobody listens on). `placement`: `worker=`, `pool=` and
    `overrides=`, as `run_create` takes them."""
    from benchmarks_app.services.runs import run_create

    baseline, candidate = versions
    return run_create(
        route=baseline.route,
        baseline=baseline,
        candidate=candidate,
        lane="extraction",
        actor=actor,
        engine_kind="openai",
        endpoints=endpoints,
        **placement,
    )


def register(name: str = "w1", hardware: dict[str, Any] | None = None, caps: list[str] | None = None) -> Any:
    bootstrap, _ = bootstrap_token_create(note="tests")
    return worker_register(
        bootstrap=bootstrap,
        name=name,
        host=f"{name}.example",
        hardware=hardware or HARDWARE,
        engines={"transformers": "5.0"},
        capabilities=caps or ["openai", "transformers", "managed"],
        agent_version="0.1.0",
        spec_versions=[1],
        extra_queues=[],
    )
