"""Contracts name workloads (`dataset: workload:NAME@sha256:…`); storing a version checks
the workload exists for its uploader and keeps its content, and records the use."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import ContractVersion
from tests.support.factories import make_user
from tests.workloads.conftest import URL, chat_contract, client_for, upload, upload_contract
from workloads_app.models import WorkloadUse

pytestmark = pytest.mark.django_db
PATH = "measurement.workloads.chat.dataset"


def _errors(response: Any) -> dict[str, str]:
    return {e["path"]: e["message"] for e in response.json().get("errors", [])}


def test_a_contract_naming_a_registered_workload_is_stored_and_its_use_recorded(operator: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    response = upload_contract(client, chat_contract(body["dataset"]))
    assert response.status_code == 201, response.content
    [use] = WorkloadUse.objects.all()
    assert (use.workload.digest, use.lane, use.contract_version.number) == (body["digest"], "chat", 1)
    detail = client.get(f"{URL}{body['name']}@{body['digest']}/").json()
    assert detail["used_by"] == [{"route": "support-chat", "version": 1, "lane": "chat", "active": False}]


def test_a_workload_that_is_not_registered_is_refused_on_its_field(operator: Any) -> None:
    missing = "workload:support-chat-2026-11@sha256:" + "0" * 64
    response = upload_contract(client_for(operator), chat_contract(missing))
    assert response.status_code == 400
    assert (
        "is registered" in _errors(response)[PATH]
        and "no workload support-chat-2026-11" in _errors(response)[PATH]
    )
    assert not ContractVersion.objects.exists()


def test_someone_elses_unreferenced_workload_is_as_good_as_missing(operator: Any) -> None:
    body = upload(client_for(make_user("otto-operator", "operator"))).json()
    response = upload_contract(client_for(operator), chat_contract(body["dataset"]))
    assert response.status_code == 400 and "no workload" in _errors(response)[PATH]


def test_a_deleted_workload_is_refused_saying_so(operator: Any) -> None:
    client = client_for(operator)
    body = upload(client).json()
    ref = f"{body['name']}@{body['digest']}"
    assert client.delete(f"{URL}{ref}/", data={"reason": "customer asked"}, format="json").status_code == 200
    response = upload_contract(client, chat_contract(body["dataset"]))
    assert response.status_code == 400 and "was deleted on" in _errors(response)[PATH]


def test_a_malformed_reference_gets_the_grammar(operator: Any) -> None:
    response = upload_contract(client_for(operator), chat_contract("workload:support-chat@sha256:beef"))
    assert response.status_code == 400 and "workload:NAME@sha256:<64 lowercase hex" in _errors(response)[PATH]


def test_built_in_sets_keep_working_beside_registered_workloads(operator: Any) -> None:
    response = upload_contract(client_for(operator), chat_contract("builtin:chat"))
    assert response.status_code == 201 and not WorkloadUse.objects.exists()
