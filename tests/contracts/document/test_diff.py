"""The semantic diff on real before/after pairs: paths keyed by identity, impact classes
per DESIGN §2, and whether the change needs a benchmark."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contracts_app.document import (
    Change,
    diff_documents,
    document_digest,
    highest_impact,
    normalize,
    requires_benchmark,
    validate_document,
)
from tests.support.documents import DRAFT, load_example


def stored(data: dict[str, Any]) -> dict[str, Any]:
    """What the service stores: the normalized form of a valid document."""
    return normalize(validate_document(data))


def by_path(changes: list[Change]) -> dict[str, Change]:
    return {c.path: c for c in changes}


def test_identical_documents_have_no_changes() -> None:
    doc = stored(load_example("agent-draft-model-vllm.yaml"))
    assert diff_documents(doc, copy.deepcopy(doc)) == []
    assert highest_impact([]) is None
    assert not requires_benchmark([])


def test_a_method_change_is_route_identity() -> None:
    before = load_example("contract-summaries-ngram.yaml")
    after = copy.deepcopy(before)
    after["speculation"] = {"method": "draft_model", "num_speculative_tokens": 4}
    draft = dict(DRAFT, tokenizer=dict(before["compatibility"]["tokenizer"]))
    after["assets"] = [draft]
    changes = diff_documents(stored(before), stored(after))
    paths = by_path(changes)
    assert paths["speculation.method"].old == "ngram" and paths["speculation.method"].new == "draft_model"
    assert paths["speculation.method"].kind == "changed"
    assert paths["speculation.num_speculative_tokens"].old == 5
    assert paths["speculation.params"].kind == "removed"
    assert (
        paths["assets[role=draft]"].kind == "added"
        and paths["assets[role=draft]"].new["name"] == DRAFT["name"]
    )
    assert {c.impact for c in changes} == {"route-identity"}
    assert requires_benchmark(changes)
    assert highest_impact(changes) == "route-identity"


def test_a_draft_revision_bump_is_keyed_by_role() -> None:
    before = load_example("agent-draft-model-vllm.yaml")
    after = copy.deepcopy(before)
    after["assets"][0]["revision"] = "1111111111111111111111111111111111111111"
    [change] = diff_documents(stored(before), stored(after))
    assert change.as_dict() == {
        "path": "assets[role=draft].revision",
        "old": "7ae557604adf67be50417f59c2c2f167def9a775",
        "new": "1111111111111111111111111111111111111111",
        "impact": "route-identity",
        "kind": "changed",
    }
    assert requires_benchmark([change])


def test_a_lane_change_is_scope_and_reported_as_set_items() -> None:
    before = load_example("contract-summaries-ngram.yaml")
    after = copy.deepcopy(before)
    after["lanes"]["allowed"] = ["extraction", "summarization", "document_review"]  # reordered + one more
    after["lanes"]["excluded"] = []
    changes = diff_documents(stored(before), stored(after))
    assert [(c.path, c.kind, c.old, c.new, c.impact) for c in changes] == [
        ("lanes.allowed", "added", None, "document_review", "scope"),
        ("lanes.excluded", "removed", "agent", None, "scope"),
    ]
    assert highest_impact(changes) == "scope"
    assert not requires_benchmark(changes)


def test_a_description_or_notes_change_is_cosmetic() -> None:
    before = load_example("support-chat-eagle3.yaml")
    after = copy.deepcopy(before)
    after["description"] = "Customer support assistant, interactive (EU region)."
    after["notes"] = "Reviewed by the platform team."
    changes = diff_documents(stored(before), stored(after))
    assert {(c.path, c.kind, c.impact) for c in changes} == {
        ("description", "changed", "cosmetic"),
        ("notes", "added", "cosmetic"),
    }
    assert highest_impact(changes) == "cosmetic"
    assert not requires_benchmark(changes)


def test_measurement_and_rollback_changes_are_policy_with_semantic_paths() -> None:
    before = load_example("contract-summaries-ngram.yaml")
    after = copy.deepcopy(before)
    after["measurement"]["improve"][0]["min_ratio"] = 1.3
    after["measurement"]["workloads"]["extraction"]["concurrency"] = [1, 4, 8]
    after["measurement"]["non_inferiority"] = list(reversed(after["measurement"]["non_inferiority"]))
    after["rollback"]["to"] = "version:3"
    changes = diff_documents(stored(before), stored(after))
    assert [(c.path, c.kind, c.old, c.new) for c in changes] == [
        ("measurement.workloads.extraction.concurrency", "added", None, 8),
        ("measurement.improve[metric=tpot_p50].min_ratio", "changed", 1.2, 1.3),
        ("rollback.to", "changed", "previous", "version:3"),
    ]
    assert {c.impact for c in changes} == {"policy"}


def test_standards_added_and_removed_are_keyed_by_metric() -> None:
    before = load_example("support-chat-eagle3.yaml")
    after = copy.deepcopy(before)
    after["measurement"]["non_inferiority"] = [{"metric": "e2e_p95", "max_ratio": 1.0}]
    paths = by_path(diff_documents(stored(before), stored(after)))
    assert paths["measurement.non_inferiority[metric=ttft_p95]"].kind == "removed"
    assert paths["measurement.non_inferiority[metric=e2e_p95]"].kind == "added"


def test_batching_tokenizer_and_target_changes_are_route_identity() -> None:
    # TGI: a batch cut-off it cannot enforce is a warning there (on vLLM it is refused now).
    before = load_example("contract-summaries-ngram.yaml")
    before["target"]["engine"] = "tgi"
    before["target"]["engine_version"] = "3.3.0"
    before["speculation"].pop("params")
    after = copy.deepcopy(before)
    after["compatibility"]["batching"]["speculation_off_above_batch_size"] = 16
    after["compatibility"]["decoding"]["modes"] = ["greedy"]
    del after["compatibility"]["decoding"]["temperature_max"]
    after["target"]["engine_version"] = "3.3.7"
    changes = diff_documents(stored(before), stored(after))
    assert {c.path for c in changes} == {
        "compatibility.batching.speculation_off_above_batch_size",
        "compatibility.decoding.modes",
        "compatibility.decoding.temperature_max",
        "target.engine_version",
    }
    assert {c.impact for c in changes} == {"route-identity"}


def test_the_highest_impact_wins() -> None:
    before = load_example("doc-review-ngram-tgi.yaml")
    after = copy.deepcopy(before)
    after["description"] = "changed"
    after["rollback"]["when"] = ["gate_fail", "manual"]
    assert highest_impact(diff_documents(stored(before), stored(after))) == "policy"
    after["lanes"]["excluded"] = ["chat"]
    assert highest_impact(diff_documents(stored(before), stored(after))) == "scope"
    after["speculation"]["num_speculative_tokens"] = 3
    assert highest_impact(diff_documents(stored(before), stored(after))) == "route-identity"


def test_spelling_out_a_default_is_no_change() -> None:
    before = load_example("doc-review-ngram-tgi.yaml")
    after = copy.deepcopy(before)
    after["measurement"]["improve"][0]["confidence"] = 0.95
    after["lanes"]["excluded"].reverse()
    assert diff_documents(stored(before), stored(after)) == []


def test_changes_are_frozen() -> None:
    change = Change(path="description", old="a", new="b", impact="cosmetic", kind="changed")
    try:
        change.path = "x"  # type: ignore[misc]
    except AttributeError:
        return
    raise AssertionError("Change must be frozen")


def _mutations() -> list[tuple[str, Any]]:
    return [
        ("description", "other words"),
        ("lanes.excluded", ["chat"]),
        ("speculation.num_speculative_tokens", 7),
        ("measurement.memory_headroom_min_gib", 9.5),
        ("rollback.to", "speculation_off"),
        ("compatibility.max_concurrency", 8),
        ("target.revision", "abc123"),
    ]


@settings(max_examples=40, deadline=None)
@given(picks=st.lists(st.integers(min_value=0, max_value=6), max_size=4), seed=st.integers(0, 1000))
def test_no_diff_exactly_when_the_digest_is_the_same(picks: list[int], seed: int) -> None:
    before = load_example("contract-summaries-ngram.yaml")
    after = copy.deepcopy(before)
    for index in picks:
        path, value = _mutations()[index]
        node = after
        *parents, leaf = path.split(".")
        for part in parents:
            node = node[part]
        node[leaf] = value
    random.Random(seed).shuffle(after["lanes"]["allowed"])
    changes = diff_documents(stored(before), stored(after))
    same_digest = document_digest(validate_document(before)) == document_digest(validate_document(after))
    assert (changes == []) == same_digest
    assert diff_documents(stored(after), stored(after)) == []
