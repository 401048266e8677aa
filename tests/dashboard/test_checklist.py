"""The six checklist answers (DESIGN §6) from the active contract and its evidence: the
words, the statuses, and evidence links that lead somewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from contracts_app.selectors import route_get
from dashboard_app.selectors.checklist import QUESTIONS, route_checklist
from dashboard_app.selectors.history import version_history
from releases_app.models import Release
from releases_app.services import release_approve, release_create, release_rollback
from tests.support.benchmarked import baseline_document, benchmarked_release, candidate_document
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db


def answers(slug: str) -> list[Any]:
    return route_checklist(route_get(slug)).answers


def activate(release: Release, approver: Any) -> None:
    """Approve and activate. These tests are about the answers, not the verdict: a real
    benchmark on a loaded machine may fail its gate, which then takes an override."""
    if release.gate_verdict == "fail":
        release_approve(
            release=release,
            actor=approver,
            reason="reviewed the gate",
            override=True,
            justification="the checklist wording is under test here, not the speedup",
        )
    else:
        release_approve(release=release, actor=approver, reason="reviewed the gate")


def go_live(slug: str, document: dict[str, Any], proposer: Any, approver: Any) -> None:
    """A route's first version, activated through its first release (no benchmark)."""
    make_version(slug, document)
    release = release_create(route=slug, candidate_version=1, actor=proposer)
    release_approve(release=release, actor=approver, reason="first version")


def test_a_token_schedule_is_documented_as_a_batching_limit(proposer: Any, second_approver: Any) -> None:
    go_live("ops-agent", example("agent-draft-model-vllm"), proposer, second_approver)
    q3 = answers("ops-agent")[2]
    assert q3.status == "documented"
    assert "speculative tokens by batch size: 4 up to batch 8, none up to batch 64" in q3.answer


def test_a_route_with_nothing_active_says_so_for_every_question(db: None) -> None:
    make_version("support-chat", example("support-chat-eagle3"))
    checklist = route_checklist(route_get("support-chat"))
    assert checklist.active_version is None
    assert [a.question for a in checklist.answers] == list(QUESTIONS)
    assert all(
        a.status == "missing" and "No version of this route is active" in a.answer for a in checklist.answers
    )


def test_an_activated_ngram_route_answers_from_its_contract_runs_and_audit(
    benchmarked: Release, second_approver: Any
) -> None:
    activate(benchmarked, second_approver)
    q1, q2, q3, q4, q5, q6 = answers("contract-summaries")

    assert q1.status == "documented"
    assert q1.answer.startswith("N-gram prompt lookup (ngram), 5 speculative tokens per step, on vllm 0.24.0")
    assert f"release #{benchmarked.pk}, approved by {second_approver.username}" in q1.answer
    assert "Decided by " in q1.answer and " per arm, " in q1.answer  # the deciding rule, its number
    assert {e.kind for e in q1.evidence} == {"contract_field", "release", "audit_event"}

    assert (
        "No second model" in q2.answer
        and "prompt-lookup heuristics" in q2.answer
        and "2 to 5 tokens" in q2.answer
    )
    assert q3.status == "documented" and "batches up to 256" in q3.answer
    assert q4.answer == "Approved for summarization and extraction; excluded: agent."

    assert q5.status == "measured"
    assert q5.answer.startswith("Measured on the real workload lanes:")
    for lane in ("summarization", "extraction"):
        assert f"{lane} (builtin:{lane} v1, " in q5.answer  # with the version the harness recorded
    run_links = [e for e in q5.evidence if e.kind == "run"]
    assert len(run_links) == 2 and all(e.url.startswith("/runs/") for e in run_links)

    assert q6.status == "documented"
    assert q6.answer.startswith("Return to the previous version, v1 (no speculation (plain decoding))")
    assert "names when: the benchmark gate fails and outputs stop matching the baseline's" in q6.answer


def test_every_evidence_link_opens_a_page(
    benchmarked: Release, second_approver: Any, signed_in: Client
) -> None:
    activate(benchmarked, second_approver)
    links = [e for a in answers("contract-summaries") for e in a.evidence]
    assert {e.kind for e in links} == {"contract_field", "run", "release", "audit_event"}
    for e in links:
        path, _, anchor = e.url.partition("#")
        response = signed_in.get(path)
        assert response.status_code == 200, e
        if anchor:
            assert f'id="{anchor}"' in response.content.decode(), e


def test_gains_are_not_measured_when_no_run_of_the_active_version_finished(
    proposer: Any, approver: Any
) -> None:
    # The route's first release goes live without a benchmark (nothing to compare with).
    go_live("contract-summaries", example(), proposer, approver)
    q5 = answers("contract-summaries")[4]
    assert q5.status == "not_measured"
    assert q5.answer == "Not measured: no benchmark of version 1 has finished, on any lane."
    assert [e.kind for e in q5.evidence] == ["contract_field"]


def test_a_lane_the_contract_allows_but_no_run_measured_is_named(
    proposer: Any, approver: Any, second_approver: Any
) -> None:
    candidate = candidate_document()
    del candidate["measurement"]["workloads"]["summarization"]  # only extraction is benchmarked
    release = benchmarked_release(proposer=proposer, approver=approver, candidate=candidate)
    activate(release, second_approver)
    q5 = answers("contract-summaries")[4]
    assert q5.status == "partial"
    assert "Measured on the real workload lanes: extraction (builtin:extraction v1" in q5.answer
    assert q5.answer.endswith("Not measured: summarization.")


def test_a_benchmark_on_a_handful_of_prompts_is_called_a_demo(
    proposer: Any, approver: Any, second_approver: Any, tmp_path: Path
) -> None:
    prompts = tmp_path / "demo.jsonl"
    prompts.write_text(
        "\n".join(json.dumps({"id": f"p{i}", "prompt": f"Summarise contract clause {i}."}) for i in range(3))
        + "\n"
    )
    demo = {"dataset": str(prompts), "concurrency": [1], "requests_per_level": 6, "max_tokens": 8}
    docs = [
        variant(d, **{"measurement.workloads": {"extraction": demo}})
        for d in (baseline_document(), candidate_document())
    ]
    release = benchmarked_release(proposer=proposer, approver=approver, baseline=docs[0], candidate=docs[1])
    assert release.gate_verdict is not None  # the gate ran on it
    activate(release, second_approver)
    q5 = answers("contract-summaries")[4]
    assert q5.status == "demo_only"
    assert (
        "Only a demo prompt set (fewer than 8 prompts) on extraction (demo, 3 distinct prompts" in q5.answer
    )
    assert "Not measured: summarization." in q5.answer


def test_second_models_and_heads_are_named_with_their_pins(proposer: Any, approver: Any) -> None:
    go_live("ops-agent", example("agent-draft-model-vllm"), proposer, approver)
    go_live("support-chat", example("support-chat-eagle3"), proposer, approver)
    q2 = answers("ops-agent")[1]
    assert q2.status == "documented"
    assert q2.answer.startswith(
        "Yes: a second model: draft Qwen/Qwen2.5-0.5B-Instruct @ 7ae557604adf, 0.99 GB"
    )
    q3 = answers("ops-agent")[2]
    assert "the draft's tokenizer is named and checked against it" in q3.answer
    assert answers("support-chat")[1].answer.startswith(
        "Yes: EAGLE-3 heads (a second checkpoint trained on the target)"
    )
    q6 = answers("support-chat")[5]
    assert q6.answer.startswith(
        "Switch speculation off: the same target, engine and limits with plain decoding"
    )


def test_an_unpinned_tokenizer_is_only_partly_documented(proposer: Any, approver: Any) -> None:
    go_live("local-extraction", example("local-gemma-prompt-lookup"), proposer, approver)
    q3 = answers("local-extraction")[2]
    assert q3.status == "partial"
    assert q3.answer.startswith("Partly: the tokenizer is not pinned.")


def test_after_a_rollback_the_answers_say_how_the_route_got_back(
    benchmarked: Release, second_approver: Any
) -> None:
    activate(benchmarked, second_approver)
    release_rollback(release=benchmarked, actor=second_approver, reason="summaries drifted")
    q1, *_, q6 = answers("contract-summaries")
    assert q1.answer.startswith("None: speculation is off. Version 1 serves")
    assert q1.answer.endswith(
        f"Active again since release #{benchmarked.pk} (v2) was rolled back by {second_approver.username}: "
        "“summaries drifted”."
    )
    # Nothing to roll back now: the badge says so, and no trigger is claimed.
    assert q6.status == "missing"
    assert q6.answer.startswith(
        f"No rollback target: version 1 is active because release #{benchmarked.pk} was rolled back"
    )
    assert "when" not in q6.answer


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("version:1", "Return to version 1 (n-gram prompt lookup)."),
        (
            "version:2",
            "No rollback target: the contract returns to version 2, which is the active version itself.",
        ),
        (
            "version:9",
            "No rollback target: the contract returns to version 9, which does not exist on this route.",
        ),
    ],
)
def test_a_named_rollback_target_is_answered_with_its_number_and_method(
    target: str, says: str, proposer: Any, approver: Any
) -> None:
    make_version("contract-summaries", candidate_document())  # v1, never active
    make_version("contract-summaries", variant(baseline_document(), **{"rollback.to": target}))
    release = release_create(route="contract-summaries", candidate_version=2, actor=proposer)
    release_approve(release=release, actor=approver, reason="first release")  # no benchmark: no baseline
    q6 = answers("contract-summaries")[5]
    assert q6.answer.startswith(says)
    assert (q6.status == "missing") == says.startswith("No rollback target")
    # The route page passes the versions and endpoints it read: the same answers.
    route = route_get("contract-summaries")
    page_read = route_checklist(route, [], version_history(route, None).rows)
    assert page_read == route_checklist(route)
