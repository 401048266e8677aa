"""Per-field facts and coverage words of a probe (live_app/conformance/coverage.py)."""

from __future__ import annotations

from typing import Any

from live_app.conformance import probe_engine
from tests.live.conftest import contract, fetcher, vllm_claim
from tests.support.launcher import reserved_port


def test_vllm_without_dev_mode_names_its_coverage(emulator: Any) -> None:
    emu = emulator(*vllm_claim())
    outcome = probe_engine(
        contract(), engine="vllm", base_url=emu.base_url, metrics_url="", fetcher=fetcher()
    )
    states = {f["field"]: f["state"] for f in outcome.facts}
    assert states["speculation.num_speculative_tokens"] == "verified"
    # /metrics has the spec-decode counters (speculation is on), and not the method.
    assert states["speculation.method"] == "speculates"
    assert states["speculation.params.prompt_lookup_max"] == "not_reported"
    assert "speculation.method" in outcome.unknown  # its value is not reported
    verified = sum(1 for s in states.values() if s == "verified")
    assert outcome.coverage.startswith(f"{verified} of {len(states)} fields verified")
    assert "vLLM 0.24.0 says it is speculating (/metrics: spec_decode counters), not which method" in (
        outcome.coverage
    )
    assert "vLLM 0.24.0 does not report speculation.params.prompt_lookup_min" in outcome.coverage


def test_refused_endpoint_is_not_reached_not_unreported() -> None:
    with reserved_port() as port:
        outcome = probe_engine(contract(), engine="vllm", base_url=f"http://127.0.0.1:{port}",
                               metrics_url="", fetcher=fetcher())  # fmt: skip
    assert outcome.reason.startswith("not reached: ")
    assert "does not report" not in outcome.reason
    assert {f["state"] for f in outcome.facts} == {"not_reached"}
    assert outcome.coverage.startswith("not reached")
