"""The request context (kernel/context.py): the audit trail names the request, task or
command that caused each event without anyone passing the id along."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from celery import shared_task
from django.core.management import call_command

from audit_app.models import AuditEvent
from kernel.celery_context import HEADER, _carry_request_id
from kernel.context import current_request_id, request_context
from tests.support.actors import as_caller


@shared_task(name="tests.kernel.report_request_id")
def report_request_id() -> str:
    return current_request_id()


def _issue_token(operator: Any, **headers: str) -> Any:
    client = as_caller("operator", operator).client()
    return client.post("/api/v1/tokens/", {"role": "viewer", "name": "ctx"}, format="json", **headers)


@pytest.mark.django_db
def test_an_api_write_is_audited_with_the_callers_request_id(operator: Any) -> None:
    response = _issue_token(operator, HTTP_X_REQUEST_ID="pipeline-run-42")
    assert response.status_code == 201, response.content
    assert response["X-Request-ID"] == "pipeline-run-42"
    event = AuditEvent.objects.get(action="token.issued")
    assert event.request_id == "pipeline-run-42"


@pytest.mark.django_db
def test_a_request_without_an_id_gets_one_and_its_events_carry_it(operator: Any) -> None:
    response = _issue_token(operator, HTTP_X_REQUEST_ID="not an id; spaces")
    assert response.status_code == 201
    given = response["X-Request-ID"]
    assert given and given != "not an id; spaces"
    assert AuditEvent.objects.get(action="token.issued").request_id == given


@pytest.mark.django_db
def test_a_problem_answer_names_the_request(operator: Any) -> None:
    client = as_caller("operator", operator).client()
    response = client.post("/api/v1/tokens/", {"role": "emperor"}, format="json", HTTP_X_REQUEST_ID="bad-1")
    assert response.status_code == 400
    assert response.json()["request_id"] == "bad-1"


def test_the_context_is_restored_after_the_block_and_per_thread() -> None:
    seen: list[str] = []
    with request_context("outer"):
        with request_context("inner"):
            worker = threading.Thread(target=lambda: seen.append(current_request_id()))
            worker.start()
            worker.join()
            assert current_request_id() == "inner"
        assert current_request_id() == "outer"
    assert current_request_id() == ""
    assert seen == [""]  # another thread never sees this one's request


def test_a_task_sent_during_a_request_carries_its_id_in_the_headers() -> None:
    headers: dict[str, Any] = {}
    with request_context("req-7"):
        _carry_request_id(headers=headers)
    assert headers == {HEADER: "req-7"}
    outside: dict[str, Any] = {}
    _carry_request_id(headers=outside)
    assert outside == {}


def test_a_task_runs_in_the_request_context_its_message_carries() -> None:
    assert report_request_id.apply(headers={HEADER: "req-8"}).get() == "req-8"
    assert current_request_id() == ""  # reset when the task ended


def test_a_task_sent_outside_any_request_runs_under_its_own_id() -> None:
    got = report_request_id.apply(task_id="t-1").get()
    assert got == "task:tests.kernel.report_request_id:t-1"


@pytest.mark.django_db
def test_a_commands_events_share_the_commands_own_id(proposer: Any) -> None:
    call_command("setrole", proposer.get_username(), "approver")
    event = AuditEvent.objects.filter(action__startswith="user.").latest("id")
    assert event.request_id.startswith("cmd:setrole:")
