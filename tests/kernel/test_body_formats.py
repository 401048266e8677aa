"""JSON is the API's body format; only contract documents also come as YAML. A YAML body
sent anywhere else is a 415 that says what the endpoint takes and what it got, and is not
read (it used to be parsed as YAML, and a malformed one was called a contract document)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from releases_app.models import Release
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


@pytest.fixture
def client(proposer: Any) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {make_token(proposer, 'operator').key}")


@pytest.mark.parametrize(
    "body",
    [
        "route: contract-summaries\ncandidate_version: 1\n",  # well-formed: still not read
        "route: [unclosed\n",
    ],
)
def test_yaml_to_a_json_only_endpoint_is_a_415_naming_json_and_what_it_got(
    client: APIClient, versions: Any, body: str
) -> None:
    response = client.post("/api/v1/releases/", data=body, content_type="application/yaml")
    assert response.status_code == 415, response.content
    assert response["Content-Type"] == PROBLEM
    problem = response.json()
    assert "application/json" in problem["detail"] and "'application/yaml'" in problem["detail"]
    assert "contract document" not in problem["detail"]
    assert problem["errors"][0]["path"] == "Content-Type"
    assert not Release.objects.exists()


def test_a_contract_document_still_comes_as_yaml(client: APIClient, versions: Any) -> None:
    response = client.post(
        "/api/v1/contracts/validate", data="route: [unclosed\n", content_type="application/yaml"
    )
    assert response.status_code == 400, response.content
    assert "contract document" in response.json()["detail"]
