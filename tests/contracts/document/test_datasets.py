"""`measurement.workloads.<lane>.dataset`: built-in sets, paths, and registered workloads
named `workload:NAME@sha256:<64 hex>` (additive to specpact/v1)."""

from __future__ import annotations

import copy

import pytest

from contracts_app.document import ContractError, validate_document
from contracts_app.document.datasets import WORKLOAD_REF_HELP, WorkloadRef, parse_workload_ref
from tests.support.documents import BASE

DIGEST = "sha256:" + "ab12" * 16


def _with_dataset(dataset: str) -> dict:
    doc = copy.deepcopy(BASE)
    doc["measurement"]["workloads"]["extraction"]["dataset"] = dataset
    return doc


def test_a_registered_workload_parses_into_name_and_digest() -> None:
    ref = parse_workload_ref(f"workload:support-chat-2026-11@{DIGEST}")
    assert ref == WorkloadRef("support-chat-2026-11", DIGEST)
    assert str(ref) == f"workload:support-chat-2026-11@{DIGEST}"


@pytest.mark.parametrize(
    "dataset",
    [f"workload:support-chat-2026-11@{DIGEST}", "builtin:extraction", "/data/prompts.jsonl"],
)
def test_built_in_sets_paths_and_well_formed_workload_references_validate(dataset: str) -> None:
    validate_document(_with_dataset(dataset))


@pytest.mark.parametrize(
    "dataset",
    [
        "workload:support-chat",  # no digest
        "workload:support-chat@sha256:abc",  # short digest
        f"workload:Support-Chat@{DIGEST}",  # upper case
        f"workload:support-chat@{DIGEST.upper()}",
        f"workload:@{DIGEST}",
        f"workload:support chat@{DIGEST}",
    ],
)
def test_a_malformed_workload_reference_is_refused_with_the_grammar(dataset: str) -> None:
    with pytest.raises(ContractError) as caught:
        validate_document(_with_dataset(dataset))
    [error] = [e for e in caught.value.errors if e.path == "measurement.workloads.extraction.dataset"]
    assert error.message == WORKLOAD_REF_HELP
