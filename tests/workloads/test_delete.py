"""Deleting a workload removes its content once no active contract measures on it; the
version row stays and the audit trail keeps a tombstone (name, digest, who, when, why)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from audit_app.models import AuditEvent
from contracts_app.models import ContractVersion, Route
from contracts_app.services.activation import route_activate
from tests.support.factories import make_user
from tests.workloads.conftest import URL, chat_contract, client_for, upload, upload_contract
from workloads_app.models import WorkloadContent, WorkloadVersion

pytestmark = pytest.mark.django_db


def _delete(client: Any, body: dict[str, Any], reason: str = "the customer asked us to") -> Any:
    return client.delete(f"{URL}{body['name']}@{body['digest']}/", data={"reason": reason}, format="json")


def test_deleting_removes_the_content_and_keeps_a_tombstone(operator: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    response = _delete(client, body)
    assert response.status_code == 200, response.content
    assert response.json()["deleted"] is True
    version = WorkloadVersion.objects.get(digest=body["digest"])
    assert not WorkloadContent.objects.filter(version=version).exists()
    [tomb] = AuditEvent.objects.filter(action="workload.deleted")
    assert (tomb.before["name"], tomb.before["digest"]) == (body["name"], body["digest"])
    assert tomb.actor == operator and tomb.reason == "the customer asked us to" and tomb.at is not None
    detail = client.get(f"{URL}{body['name']}@{body['digest']}/").json()
    assert detail["deleted"] is True and detail["content_url"] is None and detail["prompts"] == 3
    gone = client.get(f"{URL}{body['name']}@{body['digest']}/content")
    assert gone.status_code == 410 and gone["Content-Type"] == "application/problem+json"
    assert _delete(client, body).status_code == 409  # already deleted


def test_a_workload_an_active_contract_measures_on_cannot_be_deleted(operator: Any, admin: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    upload_contract(client, chat_contract(body["dataset"]))
    with transaction.atomic():
        route = Route.objects.select_for_update().get(slug="support-chat")
        route_activate(route=route, version=ContractVersion.objects.get(route=route, number=1))
    response = _delete(client_for(admin), body)
    assert response.status_code == 409 and response.json()["code"] == "workload_in_use"
    assert "support-chat v1 (chat)" in response.json()["detail"]
    assert WorkloadContent.objects.count() == 1
    # Once the route serves a version that doesn't use it, it can go.
    upload_contract(client, chat_contract("builtin:chat"))
    with transaction.atomic():
        route = Route.objects.select_for_update().get(slug="support-chat")
        route_activate(route=route, version=ContractVersion.objects.get(route=route, number=2))
    assert _delete(client_for(admin), body).status_code == 200


def test_only_its_uploader_or_an_admin_may_delete_it(operator: Any, viewer: Any, admin: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    upload_contract(client, chat_contract(body["dataset"]))  # now others see it too
    assert _delete(client_for(viewer), body).status_code == 403
    assert _delete(client_for(make_user("otto-operator", "operator")), body).status_code == 403
    assert _delete(client, body, reason=" ").status_code == 400
    assert _delete(client_for(admin), body).status_code == 200


def test_uploading_the_same_content_again_brings_it_back(operator: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    _delete(client, body)
    again = upload(client)
    assert again.status_code == 201 and again.json()["digest"] == body["digest"]
    assert client.get(f"{URL}{body['name']}@{body['digest']}/content").status_code == 200
    assert AuditEvent.objects.filter(action="workload.restored").count() == 1
