"""audit_app/actions.py lists every action the code records, and webhooks send exactly the
release transitions' actions and the ones it marks, nothing by prefix."""

from __future__ import annotations

import ast
from pathlib import Path

from audit_app.actions import ACTIONS, FAMILIES, WEBHOOK_ACTIONS
from releases_app.choices import TRANSITIONS
from webhooks_app.events import (
    CHAIN_FAILED,
    CHECKPOINT_SIGNED,
    KNOWN_EVENTS,
    is_webhook_event,
    pattern_problem,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("specpact", "accounts_app", "audit_app", "contracts_app", "workloads_app", "releases_app",
            "benchmarks_app", "live_app", "webhooks_app", "dashboard_app", "worker")  # fmt: skip


def _recorded() -> tuple[set[str], list[str]]:
    """The literal actions of every `audit_record(...)` call, and the other action expressions."""
    literals: set[str] = set()
    others: list[str] = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call):
                    continue
                name = (
                    node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                )
                if name != "audit_record":
                    continue
                action = next(k.value for k in node.keywords if k.arg == "action")
                values = [action.body, action.orelse] if isinstance(action, ast.IfExp) else [action]
                for value in values:
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        literals.add(value.value)
                    else:
                        others.append(f"{path.relative_to(ROOT)}: {ast.unparse(value)}")
    return literals, others


def test_every_recorded_action_is_in_the_registry_and_every_listed_one_is_recorded() -> None:
    literals, _ = _recorded()
    assert len(literals) > 20  # the walk found the calls
    assert literals - set(ACTIONS) == set(), "add them to audit_app/actions.py"
    assert set(ACTIONS) - literals == set(), "no longer recorded: remove them from audit_app/actions.py"


def test_the_only_computed_action_is_a_release_transitions() -> None:
    _, others = _recorded()
    assert others == ["releases_app/services/transitions.py: transition.action"]


def test_each_action_belongs_to_its_family() -> None:
    for family, names in FAMILIES.items():
        assert all(f"{family}.{name}" in ACTIONS for name in names)
    transitions = {t.action for t in TRANSITIONS.values()}
    assert all(a.startswith("release.") for a in transitions)
    assert transitions.isdisjoint(ACTIONS)


def test_webhook_events_are_the_transitions_the_marked_actions_and_the_audit_trails_own() -> None:
    transitions = {t.action for t in TRANSITIONS.values()}
    assert set(KNOWN_EVENTS) == transitions | set(WEBHOOK_ACTIONS) | {CHAIN_FAILED, CHECKPOINT_SIGNED}
    assert len(KNOWN_EVENTS) == len(set(KNOWN_EVENTS))
    assert all(is_webhook_event(e) for e in KNOWN_EVENTS)


def test_a_releases_runs_are_not_a_release_event() -> None:
    assert not is_webhook_event("release.runs.create")
    assert pattern_problem("release.runs.create") is not None


def test_drift_and_acceptance_are_families_with_events() -> None:
    assert is_webhook_event("drift.state_changed") and is_webhook_event("acceptance.alert_raised")
    assert pattern_problem("drift.*") is None and pattern_problem("acceptance.*") is None
    assert not is_webhook_event("token.issued") and not is_webhook_event("webhook.delivery_dead")
