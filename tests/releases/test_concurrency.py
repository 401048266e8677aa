"""Real races on real PostgreSQL: threads with their own connections, committed data."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from audit_app.chain import verify_chain
from contracts_app.models import Route
from kernel.errors import DomainError
from releases_app.models import Decision, Release
from releases_app.services import release_approve, release_create, release_rollback
from tests.support.factories import make_user
from tests.support.releases import activate, cosmetic_change

pytestmark = pytest.mark.django_db(transaction=True)


def _race(n: int, action: Callable[[int], Any]) -> Counter[str]:
    """Run `action(i)` in n threads released at once; count outcomes by HTTP-ish status."""
    barrier = threading.Barrier(n)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def worker(i: int) -> None:
        try:
            barrier.wait()
            action(i)
            result = "ok"
        except DomainError as exc:
            result = str(exc.status)
        except Exception as exc:
            result = f"error: {exc!r}"
        finally:
            connection.close()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return outcomes


def test_twenty_concurrent_approvals_make_exactly_one_transition(awaiting: Release) -> None:
    approvers = [make_user(f"approver-{i}", "approver") for i in range(20)]
    outcomes = _race(
        20, lambda i: release_approve(release=awaiting.pk, actor=approvers[i], reason=f"lgtm {i}")
    )
    assert outcomes == Counter({"ok": 1, "409": 19})
    assert Release.objects.get(pk=awaiting.pk).state == "active"
    assert Decision.objects.filter(release=awaiting, kind="approve").count() == 1
    assert Route.objects.get(pk=awaiting.route_id).active_version_id == awaiting.candidate_version_id
    assert verify_chain()["valid"]


def test_concurrent_proposals_on_one_route_open_exactly_one_release(route_v1: Route, proposer: Any) -> None:
    versions = [cosmetic_change(route_v1, f"wording {i}") for i in range(8)]
    outcomes = _race(
        8, lambda i: release_create(route=route_v1.slug, candidate_version=versions[i].number, actor=proposer)
    )
    assert outcomes == Counter({"ok": 1, "409": 7})
    assert Release.objects.open().filter(route=route_v1).count() == 1
    assert verify_chain()["valid"]


def test_concurrent_rollbacks_of_one_release_roll_back_once(
    route_v1: Route, proposer: Any, approver: Any, second_approver: Any
) -> None:
    release = activate(cosmetic_change(route_v1), proposer, approver)
    actors = [approver, second_approver] * 5
    outcomes = _race(10, lambda i: release_rollback(release=release.pk, actor=actors[i], reason=f"stop {i}"))
    assert outcomes == Counter({"ok": 1, "409": 9})
    assert Route.objects.get(pk=route_v1.pk).active_version.number == 1
    assert verify_chain()["valid"]
