"""Non-fatal findings: shown to the author and reviewer, never blocking an upload."""

from __future__ import annotations

from contracts_app.document import validate_document, validation_warnings
from tests.support.documents import DRAFT, base


def warnings_of(data: dict) -> dict[str, str]:
    return {w.path: w.message for w in validation_warnings(validate_document(data))}


def test_a_clean_contract_has_no_warnings() -> None:
    doc = base()
    # The example measures 64 requests per level: too few for the p95 its TTFT rule names.
    for workload in doc["measurement"]["workloads"].values():
        workload["requests_per_level"] = 128
    assert warnings_of(doc) == {}


def test_sglang_ngram_is_cuda_only() -> None:
    doc = base()
    doc["target"]["engine"] = "sglang"
    doc["target"]["engine_version"] = "0.5.9"  # the last release with the match-window flags
    assert "CUDA" in warnings_of(doc)["speculation.method"]


def test_unpinned_revisions_are_flagged() -> None:
    doc = base()
    del doc["target"]["revision"]
    doc["speculation"] = {"method": "draft_model", "num_speculative_tokens": 4}
    doc["assets"] = [{k: v for k, v in DRAFT.items() if k != "revision"}]
    found = warnings_of(doc)
    assert "not pinned" in found["target.revision"]
    assert "not pinned" in found["assets[0].revision"]


def test_an_asset_the_method_does_not_use_is_flagged() -> None:
    doc = base()
    doc["assets"] = [dict(DRAFT)]
    assert warnings_of(doc)["assets[0]"] == "method ngram does not use a draft asset"


def test_a_batch_switch_the_engine_cannot_enforce_is_flagged() -> None:
    doc = base()
    doc["target"]["engine"] = "tgi"
    doc["target"]["engine_version"] = "3.3.7"
    doc["speculation"].pop("params")  # TGI's n-gram has no lookup window
    doc["compatibility"]["batching"]["speculation_off_above_batch_size"] = 32
    assert (
        "cannot switch speculation off"
        in warnings_of(doc)["compatibility.batching.speculation_off_above_batch_size"]
    )


def test_an_allowed_lane_without_a_workload_is_flagged() -> None:
    doc = base()
    doc["lanes"]["allowed"].append("chat")
    assert "chat has no workload" in warnings_of(doc)["measurement.workloads"]


def test_no_improvement_standard_is_flagged_when_speculating() -> None:
    doc = base()
    doc["measurement"]["improve"] = []
    assert "cannot show a speedup" in warnings_of(doc)["measurement.improve"]


def test_an_improvement_below_one_is_flagged() -> None:
    doc = base()
    doc["measurement"]["improve"][0]["min_ratio"] = 0.9
    assert "get worse" in warnings_of(doc)["measurement.improve[0].min_ratio"]


def test_too_few_requests_for_a_tail_quantile_its_rules_name_is_a_warning() -> None:
    doc = base()
    doc["measurement"]["non_inferiority"] = [{"metric": "ttft_p95", "max_ratio": 1.1}]
    lane = next(iter(doc["measurement"]["workloads"]))
    doc["measurement"]["workloads"][lane]["requests_per_level"] = 12
    message = warnings_of(doc)[f"measurement.workloads.{lane}.requests_per_level"]
    assert "12 requests per level are too few for ttft_p95" in message and "about 100" in message
    doc["measurement"]["workloads"][lane]["requests_per_level"] = 100
    assert f"measurement.workloads.{lane}.requests_per_level" not in warnings_of(doc)


def test_medians_need_no_more_requests() -> None:
    doc = base()
    doc["measurement"]["improve"] = [{"metric": "tpot_p50", "min_ratio": 1.2}]
    doc["measurement"]["non_inferiority"] = []
    lane = next(iter(doc["measurement"]["workloads"]))
    doc["measurement"]["workloads"][lane]["requests_per_level"] = 12
    assert f"measurement.workloads.{lane}.requests_per_level" not in warnings_of(doc)


def test_the_validator_and_the_gate_hold_the_same_sample_rule() -> None:
    from benchmarks_app.gate.metrics import METRICS as GATE_METRICS
    from benchmarks_app.gate.metrics import min_requests_for as gate_needs
    from contracts_app.document.metrics import min_requests_for

    assert {m: min_requests_for(m) for m in GATE_METRICS} == {m: gate_needs(m) for m in GATE_METRICS}
    assert (min_requests_for("ttft_p90"), min_requests_for("ttft_p95"), min_requests_for("e2e_p99")) == (
        50,
        100,
        500,
    )
