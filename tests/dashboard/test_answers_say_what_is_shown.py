"""Answers that say only what is shown (issue 22, point 3): Q1 says how the active version
got there, Q6 is *missing* when a rollback has no target and names the live trigger, the
route's description is the active version's, a pass opens with the number that decided
it, and every speedup on the overview and the fleet carries its interval and n.

Each test builds the state whose answer used to overstate (a benchmark skipped, a first
release with nothing to return to, a rollback, v1's description while v2 runs, a pass
with its number folded away) through the real services, with real gate results."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from contracts_app.models import Route
from contracts_app.selectors import route_get
from dashboard_app.selectors.checklist import route_checklist
from dashboard_app.selectors.verdict import verdict_at_a_glance
from live_app.models import Endpoint
from releases_app.models import Release
from releases_app.services import release_approve, release_create, release_gate_complete, release_rollback
from tests.support.factories import make_version, variant
from tests.support.gates import MEASURED, gate_result
from tests.support.releases import cosmetic_change, route_identity_change

pytestmark = pytest.mark.django_db

LIVE_TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 3}


def answers(slug: str = "contract-summaries") -> list[Any]:
    return route_checklist(route_get(slug)).answers


def gated(route: Route, proposer: Any, verdict: str, document: dict[str, Any] | None = None) -> Release:
    """v2 (a route-identity change, or `document`) proposed and gated with a real result."""
    version = make_version(route, document) if document else route_identity_change(route)
    release = release_create(route=route, candidate_version=version.number, actor=proposer)
    assert release.state == "benchmarking"
    return release_gate_complete(release=release, verdict=verdict, gate_result=gate_result(verdict))


def approve(release: Release, approver: Any, **override: Any) -> Release:
    return release_approve(release=release, actor=approver, reason="read the gate", **override)


# Q1: how the active version became active ----------------------------------------------


def test_q1_says_a_first_release_went_live_without_a_benchmark_and_why(route_v1: Route) -> None:
    q1 = answers()[0]
    assert "without a benchmark" in q1.answer
    assert "it skipped the benchmark when pat-proposer proposed it" in q1.answer
    assert "because it was the route's first release, with nothing to benchmark against" in q1.answer
    assert q1.answer.endswith("No gate measured this version before it went live.")
    assert "approved by alice-approver" in q1.answer


def test_q1_says_a_cosmetic_change_skipped_the_benchmark_with_the_proposers_reason(
    route_v1: Route, proposer: Any, second_approver: Any
) -> None:
    v2 = cosmetic_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer, reason="typo fix")
    approve(release, second_approver)
    q1 = answers()[0]
    assert "because its change from v1 is cosmetic only (descriptions and notes)" in q1.answer
    assert "(pat-proposer's reason: “typo fix”)" in q1.answer


def test_q1_names_the_passing_gates_deciding_number(route_v1: Route, proposer: Any, approver: Any) -> None:
    release = approve(gated(route_v1, proposer, "pass"), approver)
    q1 = answers()[0]
    assert (
        f"Active since release #{release.pk}, approved by alice-approver after its benchmark passed the gate."
        in (q1.answer)
    )
    glance = verdict_at_a_glance(Release.objects.get(pk=release.pk).gate_result)
    assert glance is not None and glance["decided_by"] in q1.answer
    assert f"n={MEASURED} per arm, required ≥ 1.05×" in q1.answer


def test_q1_says_an_approval_over_a_failed_gate_was_an_override_with_its_justification(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    justification = "the 3x bar was a typo in the contract; 1.4x is what we wanted"
    approve(gated(route_v1, proposer, "fail"), approver, override=True, justification=justification)
    q1 = answers()[0]
    assert f"approved by alice-approver over a failed gate, with an override: “{justification}”." in q1.answer
    assert "Decided by TPOT p50 ≥ 3× better" in q1.answer and "required ≥ 3×" in q1.answer


def test_q1_says_an_approval_over_a_marginal_gate_and_the_reason(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    approve(gated(route_v1, proposer, "marginal"), approver)
    q1 = answers()[0]
    assert (
        "approved by alice-approver over a marginal gate (not enough evidence either way), "
        "saying “read the gate”" in q1.answer
    )


def test_q1_after_a_rollback_says_which_release_was_rolled_back_by_whom_and_why(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    release = approve(gated(route_v1, proposer, "pass"), approver)
    release_rollback(release=release, actor=approver, reason="summaries drifted")
    assert answers()[0].answer.endswith(
        f"Active again since release #{release.pk} (v2) was rolled back by alice-approver: "
        "“summaries drifted”."
    )


# Q6: the way back, only as far as it exists ---------------------------------------------


def test_q6_is_missing_when_the_first_release_has_no_previous_version(route_v1: Route) -> None:
    q6 = answers()[5]
    assert q6.status == "missing"
    assert q6.answer.startswith(
        "No rollback target: the contract returns to the previous version, and release #"
    )
    assert "none is recorded" not in q6.answer and "when the benchmark gate fails" not in q6.answer


def test_q6_after_a_rollback_is_missing_and_says_only_what_is_true_then(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    release = approve(gated(route_v1, proposer, "pass"), approver)
    release_rollback(release=release, actor=approver, reason="summaries drifted")
    q6 = answers()[5]
    assert q6.status == "missing"
    assert q6.answer == (
        f"No rollback target: version 1 is active because release #{release.pk} was rolled back, and a "
        "rollback acts on an active release, which this route no longer has. To change the route, propose "
        "a new release: its contract's plan applies once it is active."
    )


def test_q6_with_a_target_names_it_and_says_the_contracts_triggers_are_an_approvers_call(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    approve(gated(route_v1, proposer, "pass"), approver)
    q6 = answers()[5]
    assert q6.status == "documented"
    assert q6.answer.startswith("Return to the previous version, v1 (")
    assert (
        "The contract names when: the benchmark gate fails and outputs stop matching the baseline's "
        "(an approver's call: SpecPact watches none of these itself)." in q6.answer
    )


def test_q6_names_a_live_trigger_that_cannot_fire_and_is_only_partial(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    doc = variant(
        route_v1.active_version.document,
        **{"speculation.num_speculative_tokens": 4, "rollback.triggers": [LIVE_TRIGGER]},
    )
    approve(gated(route_v1, proposer, "pass", doc), approver)
    q6 = answers()[5]
    assert q6.status == "partial"
    assert (
        "Live trigger (live acceptance below 80% of the benchmark's for 3 windows in a row): "
        "nothing watches it" in q6.answer
    )
    Endpoint.objects.create(
        route=route_v1, name="prod-eu", base_url="http://127.0.0.1:9", engine="vllm", expects="active"
    )
    q6 = answers()[5]
    assert q6.status == "partial"
    # The synthetic gate result came with no run: no acceptance was benchmarked to hold against.
    assert "on prod-eu: it cannot fire, the approving benchmark of version 2 measured no acceptance rate" in (
        q6.answer
    )
    assert any(e.kind == "endpoints" for e in q6.evidence)


def test_q6_names_the_acceptance_watch_with_its_floor_beside_the_contracts_triggers(
    proposer: Any, approver: Any, second_approver: Any
) -> None:
    from live_app.selectors import benchmark_acceptance
    from tests.support.benchmarked import benchmarked_release, candidate_document

    candidate = variant(candidate_document(), **{"rollback.triggers": [LIVE_TRIGGER]})
    release = benchmarked_release(proposer=proposer, approver=approver, candidate=candidate)
    if release.gate_verdict == "fail":  # a loaded machine may fail the real benchmark's gate
        approve(release, second_approver, override=True, justification="the wording is under test here")
    else:
        approve(release, second_approver)
    route = Route.objects.get(slug="contract-summaries")
    Endpoint.objects.create(
        route=route, name="prod-eu", base_url="http://127.0.0.1:9", engine="vllm", expects="active"
    )
    reference = benchmark_acceptance(route.active_version)
    assert reference is not None  # the emulator reports vLLM's speculation counters
    q6 = answers()[5]
    assert q6.status == "documented"
    assert (
        f"Live trigger: the acceptance watch on prod-eu proposes the rollback when live acceptance stays "
        f"below {0.8 * reference:.2f} (80% of the {reference:.2f} the benchmark measured) for 3 windows in "
        "a row; an approver confirms it." in q6.answer
    )
    assert "The contract names when: the benchmark gate fails" in q6.answer


# The API says the same ------------------------------------------------------------------


def test_the_checklist_api_says_the_same(route_v1: Route, signed_in: Client) -> None:
    body = signed_in.get("/api/v1/routes/contract-summaries/checklist").json()
    q1, q6 = body["answers"][0], body["answers"][5]
    assert "without a benchmark" in q1["answer"] and "route's first release" in q1["answer"]
    assert q6["status"] == "missing" and q6["answer"].startswith("No rollback target")
    assert [a["answer"] for a in body["answers"]] == [a.answer for a in answers()]


# Descriptions from the active version ---------------------------------------------------


def test_the_header_overview_and_card_describe_the_active_version(
    proposer: Any, approver: Any, signed_in: Client
) -> None:
    from contracts_app.services import contract_version_create
    from tests.support.factories import example

    v1 = example()
    old = v1["description"]
    # Uploaded as a user does: the first upload writes the route row's description.
    contract_version_create(slug="contract-summaries", document=v1, source_format="yaml", actor=proposer)
    approve(release_create(route="contract-summaries", candidate_version=1, actor=proposer), approver)
    v2 = variant(v1, description="Summaries only, since extraction moved to its own route.")
    contract_version_create(slug="contract-summaries", document=v2, source_format="yaml", actor=proposer)
    approve(release_create(route="contract-summaries", candidate_version=2, actor=proposer), approver)
    assert Route.objects.get(slug="contract-summaries").description == old  # the row keeps v1's words
    for path in ("/routes/contract-summaries/", "/", "/routes/contract-summaries/card/"):
        body = signed_in.get(path).content.decode()
        assert "Summaries only, since extraction moved to its own route." in body, path
        assert old not in body, path
    markdown = signed_in.get("/routes/contract-summaries/card.md").content.decode()
    assert "Summaries only, since extraction moved to its own route." in markdown and old not in markdown


def test_a_route_with_nothing_active_says_so_in_its_header(db: None, signed_in: Client) -> None:
    from tests.support.factories import example

    make_version("support-chat", example("support-chat-eagle3"))
    body = signed_in.get("/routes/support-chat/").content.decode()
    assert "No version of this route is active yet." in body


# A pass opens with its deciding number; speedups with interval and n --------------------


def test_a_pass_opens_with_the_rule_and_number_that_decided_it(
    route_v1: Route, proposer: Any, signed_in: Client
) -> None:
    release = gated(route_v1, proposer, "pass")
    glance = verdict_at_a_glance(release.gate_result)
    assert glance is not None
    # The check that cleared its bar by the least decides a pass.
    lows = [c["ci_low"] for c in release.gate_result["checks"] if c["kind"] == "improve"]
    assert glance["check"]["ci_low"] == min(lows)
    sentence = glance["decided_by"]
    check = glance["check"]
    assert sentence == (
        f"Decided by {glance['rule']['description']}: {check['estimate']:.2f}× "
        f"[{check['ci_low']:.2f}, {check['ci_high']:.2f}], n={MEASURED} per arm, required ≥ 1.05× "
        f"(lane chat, concurrency {check['level']:g})."
    )
    body = signed_in.get(f"/releases/{release.pk}/").content.decode()
    assert f'<p class="verdict-line" data-decided-by>{sentence}</p>' in body


def test_fail_and_marginal_open_with_the_same_sentence(route_v1: Route) -> None:
    for verdict in ("fail", "marginal"):
        glance = verdict_at_a_glance(gate_result(verdict))
        assert glance is not None and glance["decided_by"].startswith("Decided by TPOT p50")
        assert f"n={MEASURED} per arm, required ≥" in glance["decided_by"]


def test_the_overview_fleet_and_card_show_interval_and_n_beside_each_speedup(
    route_v1: Route, proposer: Any, approver: Any, signed_in: Client
) -> None:
    release = approve(gated(route_v1, proposer, "pass"), approver)
    s = Release.objects.get(pk=release.pk).gate_result["speedup"][0]
    shown = f"{s['estimate']:.2f}× [{s['ci_low']:.2f}, {s['ci_high']:.2f}], n={MEASURED}"
    for path in ("/", "/fleet/", "/routes/contract-summaries/card/"):
        assert shown in signed_in.get(path).content.decode(), path
