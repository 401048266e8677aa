"""The gate's verdict names the results it judged: `release.gate_completed` records each
one's digest (SHA-256 of the stored result's canonical JSON), and verification recomputes
them, so a result swapped after the verdict is a break (issue 21, point 10). Before, the
event recorded no digest and a swapped result left the trail valid."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from audit_app.checkpoints import verify_audit
from audit_app.models import AuditEvent
from benchmarks_app.models import Run, RunResult
from releases_app.models import Release
from tests.audit.conftest import verify_command
from tests.support.actors import Caller
from tests.support.benchmarked import SERVERS, benchmarked_release

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def _stop_engine_servers() -> Iterator[None]:
    yield
    SERVERS.stop()


@pytest.fixture
def release(proposer: Any, approver: Any) -> Release:
    return benchmarked_release(proposer=proposer, approver=approver)


def _gate_event(release: Release) -> AuditEvent:
    return AuditEvent.objects.get(action="release.gate_completed", object_id=str(release.pk))


def _canonical_sha256(value: Any) -> str:
    """Independently of the code under test: the canonical bytes, hashed whole."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def test_the_gate_records_the_digest_of_every_result_it_judged(release: Release) -> None:
    judged = _gate_event(release).after["judged"]
    runs = {r.pk: r for r in Run.objects.filter(release=release)}
    assert len(runs) >= 2 and {j["run"] for j in judged} == set(runs)
    for entry in judged:
        stored = RunResult.objects.get(run_id=entry["run"])
        assert entry == {
            "run": entry["run"],
            "lane": runs[entry["run"]].lane,
            "result": stored.pk,
            "digest": _canonical_sha256(stored.payload),
        }
    assert verify_audit()["valid"]


def test_a_judged_result_swapped_after_the_verdict_is_a_break(release: Release, admin: Any) -> None:
    event = _gate_event(release)
    victim = RunResult.objects.filter(run__release=release).order_by("run_id").first()
    assert victim is not None
    better = victim.payload
    for level in better["candidate"]["levels"]:
        for request in level["requests"]:
            request["ttft_ms"] = request["ttft_ms"] / 2  # a faster candidate than was measured
    RunResult.objects.filter(pk=victim.pk).update(payload=better)  # what a database writer can do

    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "result_changed", event.pk)
    assert f"run {victim.run_id}'s result" in status["detail"] and "it was swapped" in status["detail"]
    assert f"release {release.pk}'s gate" in status["detail"]
    code, err = verify_command()
    assert code == 1 and f"BROKEN at event #{event.pk}" in err and "swapped" in err
    body = Caller("a", user=admin).client().get("/api/v1/audit/verify?full=true").json()
    assert (body["valid"], body["problem"]) == (False, "result_changed")


def test_a_judged_result_deleted_after_the_verdict_is_a_break(release: Release) -> None:
    victim = RunResult.objects.filter(run__release=release).order_by("run_id").first()
    assert victim is not None
    RunResult.objects.filter(pk=victim.pk).delete()
    status = verify_audit()
    assert (status["valid"], status["problem"]) == (False, "result_changed")
    assert f"run {victim.run_id}'s result" in status["detail"] and "is gone" in status["detail"]
