"""The conformance probe against the engine emulator shaped after each engine's source
(tests/support/engine_emulator/shapes.py cites them): conforms, drifted naming the field,
unknown where the engine does not say."""

from __future__ import annotations

import json
import time
from typing import Any

from live_app.conformance import probe_engine
from tests.live.conftest import MODEL, contract, fetcher, stream, vllm_claim
from tests.support.launcher import reserved_port

DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def _probe(emu: Any, doc: Any, engine: str = "vllm", **kw: Any) -> Any:
    return probe_engine(doc, engine=engine, base_url=emu.base_url, metrics_url="", fetcher=fetcher(**kw))


def test_vllm_with_server_info_conforms_to_its_contract(emulator: Any) -> None:
    emu = emulator(*vllm_claim(), env=DEV)
    outcome = _probe(emu, contract())
    assert outcome.state == "conforms", outcome.as_dict()
    assert outcome.differences == []
    # The fields compared, with the engine's values; never the answer's text.
    read = outcome.evidence["server_info"]
    assert read["fields"]["vllm_config.speculative_config.num_speculative_tokens"] == 5
    assert "body" not in read


def test_vllm_with_fewer_tokens_than_approved_is_drifted_naming_the_field(emulator: Any) -> None:
    emu = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    outcome = _probe(emu, contract())
    assert outcome.state == "drifted"
    assert {"path": "speculation.num_speculative_tokens", "contract": 5, "engine": 3} in outcome.differences


def test_vllm_without_dev_mode_reads_k_from_the_position_labels(emulator: Any) -> None:
    same, fewer = emulator(*vllm_claim()), emulator(*vllm_claim(num_speculative_tokens=3))
    ok = _probe(same, contract())
    assert ok.state == "conforms", ok.as_dict()
    # /metrics says speculation is on and k, not which method nor the lookup window.
    assert "speculation.method" in ok.unknown and "speculation.params.prompt_lookup_max" in ok.unknown
    drifted = _probe(fewer, contract())
    assert drifted.differences == [{"path": "speculation.num_speculative_tokens", "contract": 5, "engine": 3}]


def test_vllm_with_speculation_off_is_drifted_on_the_method(emulator: Any) -> None:
    emu = emulator("--served-model-name", MODEL)
    outcome = _probe(emu, contract())
    assert outcome.state == "drifted"
    assert outcome.differences == [{"path": "speculation.method", "contract": "ngram", "engine": "none"}]


def test_vllm_serving_another_model_is_drifted_on_the_target(emulator: Any) -> None:
    emu = emulator("--served-model-name", "Qwen/Qwen3-8B", "--speculation", json.dumps({"method": "ngram",
                   "num_speculative_tokens": 5}), env=DEV)  # fmt: skip
    paths = [d["path"] for d in _probe(emu, contract()).differences]
    assert "target.model" in paths


def _sglang_doc(steps: int = 3) -> Any:
    return contract(**{
        "target.engine": "sglang", "target.engine_version": "0.5.6",
        "speculation": {"method": "eagle3", "num_speculative_tokens": steps},
        "assets": [{"role": "eagle_head", "name": "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"}],
    })  # fmt: skip


def _sglang_claim(steps: int) -> tuple[str, ...]:
    claim = {"speculative_algorithm": "EAGLE3", "speculative_num_steps": steps, "speculative_eagle_topk": 1,
             "speculative_num_draft_tokens": steps + 1,
             "speculative_draft_model_path": "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"}  # fmt: skip
    return ("--shape", "sglang", "--served-model-name", MODEL, "--speculation", json.dumps(claim))


def test_sglang_server_info_conforms_and_drifts_by_flag(emulator: Any) -> None:
    ok = _probe(emulator(*_sglang_claim(3)), _sglang_doc(3), "sglang")
    assert ok.state == "conforms", ok.as_dict()
    drifted = _probe(emulator(*_sglang_claim(5)), _sglang_doc(3), "sglang")
    assert drifted.state == "drifted"
    assert {"path": "speculation.num_speculative_tokens", "contract": 3, "engine": 5} in drifted.differences


def test_tgi_reports_no_speculation_so_it_conforms_as_far_as_it_reports(emulator: Any) -> None:
    doc = contract(**{"target.engine": "tgi", "target.engine_version": "3.3.6", "speculation.params": None})
    emu = emulator("--shape", "tgi", "--served-model-name", MODEL, "--speculation", '{"speculate": 5}')
    outcome = _probe(emu, doc, "tgi")
    assert outcome.state == "conforms" and outcome.reached  # the model, and nothing of speculation
    assert outcome.unknown == ["speculation.method", "speculation.num_speculative_tokens"]
    assert outcome.coverage == (
        "1 of 3 fields verified; TGI 3.3.6 does not report speculation.method, "
        "speculation.num_speculative_tokens"
    )
    assert outcome.differences == []
    other = _probe(emulator("--shape", "tgi", "--served-model-name", "other/model"), doc, "tgi")
    assert other.state == "drifted" and other.differences[0]["path"] == "target.model"


def test_an_endpoint_on_another_engine_than_the_contract_is_drifted(emulator: Any) -> None:
    emu = emulator(*_sglang_claim(3))
    outcome = _probe(emu, contract(), "sglang")
    assert outcome.differences == [{"path": "target.engine", "contract": "vllm", "engine": "sglang"}]


def test_unreachable_endpoint_is_unknown_with_the_reason() -> None:
    with reserved_port() as port:  # bound, never listening: connections are refused
        outcome = probe_engine(contract(), engine="vllm", base_url=f"http://127.0.0.1:{port}",
                               metrics_url="", fetcher=fetcher())  # fmt: skip
    assert outcome.state == "unknown" and not outcome.reached
    assert "ConnectError" in outcome.reason or "refused" in outcome.reason.lower()


def test_fifty_megabytes_of_metrics_are_cut_at_the_limit(emulator: Any) -> None:
    emu = emulator("--hostile", "huge")
    started = time.monotonic()
    outcome = _probe(emu, contract(), max_bytes=1024 * 1024)
    assert outcome.state == "unknown"
    assert "larger than 1048576 bytes" in outcome.evidence["metrics"]["failure"]
    assert time.monotonic() - started < 3.5


def test_invalid_json_is_unknown_not_an_error(emulator: Any) -> None:
    outcome = _probe(emulator("--hostile", "invalid-json"), contract())
    assert outcome.state == "unknown"
    assert outcome.evidence["v1_models"]["failure"] == "the answer is not JSON"


def test_a_trickling_server_cannot_hold_the_probe_past_its_deadline(emulator: Any) -> None:
    emu = emulator("--hostile", "trickle")
    started = time.monotonic()
    outcome = _probe(emu, contract(), deadline_s=1.5)
    elapsed = time.monotonic() - started
    assert outcome.state == "unknown"
    assert elapsed < 2.5, elapsed
    assert "within" in outcome.reason


def test_a_redirect_is_not_followed(emulator: Any) -> None:
    outcome = _probe(emulator("--hostile", "redirect"), contract())
    assert outcome.state == "unknown"
    assert outcome.evidence["v1_models"]["status"] == 302
    assert outcome.evidence["v1_models"]["failure"] == "HTTP 302"


def test_counters_are_read_for_the_watch(emulator: Any) -> None:
    emu = emulator(*vllm_claim())
    stream(emu)
    outcome = _probe(emu, contract())
    assert outcome.counters is not None
    truth = emu.counters()
    assert outcome.counters.draft_tokens == truth["draft_tokens"]
    assert outcome.counters.accepted_tokens == truth["accepted_tokens"]


def test_the_contract_model_loaded_from_a_local_path_is_the_same_model(emulator: Any) -> None:
    claim = json.dumps(
        {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_min": 2, "prompt_lookup_max": 5}
    )
    emu = emulator("--served-model-name", "/models/Llama-3.1-8B-Instruct", "--speculation", claim, env=DEV)
    outcome = _probe(emu, contract())
    assert outcome.state == "conforms", outcome.differences
