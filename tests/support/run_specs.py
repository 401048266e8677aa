"""One builder for the run specs tests hand to the worker (`worker.spec.RunSpec`): what
`run_start` would store, with only what a test cares about overridden."""

from __future__ import annotations

from typing import Any

CLOSED_PORT_URL = "http://127.0.0.1:1"


def arm(base_url: str = CLOSED_PORT_URL, *, method: str = "ngram", **engine: Any) -> dict[str, Any]:
    """One arm: contract version 1 with a zero digest, served at `base_url`."""
    return {
        "contract_version": 1,
        "digest": "sha256:" + "0" * 64,
        "speculation_method": method,
        "engine": {"kind": "openai", "model": "test-model", "server": "vllm", "base_url": base_url, **engine},
    }


def run_spec(
    *,
    baseline: dict[str, Any] | None = None,
    candidate: dict[str, Any] | None = None,
    levels: list[dict[str, Any]] | None = None,
    requests_per_level: int = 3,
    warmup_requests: int = 0,
    **top: Any,
) -> dict[str, Any]:
    """A whole spec as a dict: two arms (closed-port defaults), the built-in extraction lane,
    `levels` (concurrency 1 and 2 unless given), `abba_per_level` unless `interleave=` says
    otherwise; any other top-level key replaces the default."""
    return {
        "run_id": 1,
        "attempt": 1,
        "route": "contract-summaries",
        "interleave": "abba_per_level",
        "arms": {"baseline": baseline or arm(), "candidate": candidate or arm()},
        "workload": {"lane": "extraction", "dataset": "builtin:extraction"},
        "load": {
            "levels": levels if levels is not None else [{"concurrency": 1}, {"concurrency": 2}],
            "requests_per_level": requests_per_level,
            "warmup_requests": warmup_requests,
        },
        "max_tokens": 8,
        "sampling": {"temperature": 0.0},
        "seed": 0,
        "limits": {"soft_time_limit_s": 60, "time_limit_s": 120},
        **top,
    }
