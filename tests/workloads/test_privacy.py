"""Who sees a workload: those who may see a route that uses it (route-scoped tokens only
theirs), its uploader, admins. Everyone else gets 404, as if it did not exist."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.support.actors import Caller
from tests.support.factories import make_token, make_user
from tests.workloads.conftest import URL, chat_contract, client_for, upload, upload_contract
from worker.workloads.records import digest_of

pytestmark = pytest.mark.django_db


def _token_client(user: Any, role: str, routes: list[str]) -> APIClient:
    issued = make_token(user, role, routes)
    return Caller("token", user=user, key=issued.key).client()


def _ref(body: dict[str, Any]) -> str:
    return f"{body['name']}@{body['digest']}"


def test_an_unreferenced_workload_is_its_uploaders_and_the_admins(
    operator: Any, viewer: Any, admin: Any
) -> None:
    body = upload(client_for(operator)).json()
    other = make_user("otto-operator", "operator")
    for user, seen in ((operator, True), (admin, True), (viewer, False), (other, False)):
        client = client_for(user)
        detail = client.get(f"{URL}{_ref(body)}/")
        assert detail.status_code == (200 if seen else 404), user
        assert client.get(URL).json()["count"] == (1 if seen else 0), user
        assert client.get(f"{URL}{body['name']}/").status_code == (200 if seen else 404)
        assert client.get(f"{URL}{_ref(body)}/content").status_code == (200 if seen else 404)


def test_once_a_route_uses_it_whoever_may_see_that_route_sees_it(
    operator: Any, viewer: Any, pipeline: Caller, outsider: Caller
) -> None:
    body = upload(client_for(operator)).json()
    assert upload_contract(client_for(operator), chat_contract(body["dataset"])).status_code == 201
    assert client_for(viewer).get(f"{URL}{_ref(body)}/").status_code == 200
    scoped = _token_client(make_user("sam-support", "viewer"), "viewer", ["support-chat"])
    assert scoped.get(f"{URL}{_ref(body)}/").status_code == 200
    # Tokens scoped to other routes: 404 on the version, its name and its content, absent from the list.
    for caller in (pipeline, outsider):
        client = caller.client()
        assert client.get(f"{URL}{_ref(body)}/").status_code == 404
        assert client.get(f"{URL}{body['name']}/").status_code == 404
        assert client.get(f"{URL}{_ref(body)}/content").status_code == 404
        assert client.get(URL).json()["count"] == 0


def test_a_scoped_token_reads_its_own_routes_workload_but_not_another_routes(operator: Any) -> None:
    client = client_for(operator)
    chat = upload(client, name="support-chat-2026-11").json()
    summaries = upload(client, '{"prompt": "Summarise clause 4."}\n', name="contract-clauses").json()
    upload_contract(client, chat_contract(chat["dataset"]))
    doc = chat_contract(summaries["dataset"], route="contract-summaries")
    assert upload_contract(client, doc).status_code == 201
    reader = make_user("rita-reader", "viewer")
    scoped = _token_client(reader, "viewer", ["contract-summaries"])
    assert scoped.get(f"{URL}{_ref(summaries)}/").status_code == 200
    response = scoped.get(f"{URL}{_ref(chat)}/")
    assert response.status_code == 404 and response["Content-Type"] == "application/problem+json"
    assert [w["name"] for w in scoped.get(URL).json()["results"]] == ["contract-clauses"]
    # What it may see lists only the uses on its own routes.
    assert [u["route"] for u in scoped.get(f"{URL}{_ref(summaries)}/").json()["used_by"]] == [
        "contract-summaries"
    ]


def test_the_content_is_the_canonical_jsonl_with_its_digest(operator: Any) -> None:
    body = upload(client_for(operator)).json()
    response = client_for(operator).get(f"{URL}{_ref(body)}/content")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    assert digest_of(response.content) == body["digest"] == response["X-Workload-Digest"]


def test_a_names_versions_are_listed_newest_first(operator: Any) -> None:
    client = client_for(operator)
    first = upload(client, '{"prompt": "one"}\n', name="lane-x").json()
    second = upload(client, '{"prompt": "two"}\n', name="lane-x").json()
    listing = client.get(f"{URL}lane-x/").json()
    assert [v["digest"] for v in listing["versions"]] == [second["digest"], first["digest"]]
    assert listing["latest"]["digest"] == second["digest"]


def test_someone_who_uploads_the_same_content_holds_it_too_and_may_use_it(operator: Any, viewer: Any) -> None:
    body = upload(client_for(operator)).json()
    colleague = make_user("otto-operator", "operator")
    client = client_for(colleague)
    assert client.get(f"{URL}{_ref(body)}/").status_code == 404
    again = upload(client)
    assert again.status_code == 200 and again.json()["digest"] == body["digest"]
    assert client.get(f"{URL}{_ref(body)}/").status_code == 200
    assert upload_contract(client, chat_contract(body["dataset"])).status_code == 201
    assert client_for(viewer).get(f"{URL}{_ref(body)}/").status_code == 200  # a route uses it now


def test_the_list_reads_in_constant_queries(operator: Any, django_assert_num_queries: Any) -> None:
    client = client_for(operator)
    upload(client, '{"prompt": "one"}\n', name="w-1")
    client.get(URL)  # the session and role rows, once
    # Session, user, role; the page's count; the page (creators joined, content flags).
    with django_assert_num_queries(5):
        assert client.get(URL).json()["count"] == 1
    for i in range(2, 6):
        upload(client, f'{{"prompt": "n{i}"}}\n', name=f"w-{i}")
    with django_assert_num_queries(5):
        assert client.get(URL).json()["count"] == 5
