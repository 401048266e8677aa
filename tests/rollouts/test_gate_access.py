"""Who may ask the gates: a rollout-gate token reads its routes' gates and nothing else;
any viewer may read them; another route's release is invisible (404)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts_app.services import token_issue, token_revoke
from audit_app.actors import Actor
from contracts_app.models import Route
from releases_app.models import Release
from tests.support.actors import Caller
from tests.support.factories import example, make_token, make_version
from tests.support.rollouts import flagger_post, issue_gate_token

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("system:tests")


@pytest.fixture
def active(route_v1: Route) -> Release:
    return Release.objects.get(route=route_v1, state="active")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/releases/"),
        ("get", "/api/v1/releases/{id}/"),
        ("get", "/api/v1/routes/contract-summaries/"),
        ("get", "/api/v1/audit/"),
        ("post", "/api/v1/releases/{id}/rollback"),
    ],
)
def test_a_gate_token_reads_nothing_but_the_gates(
    active: Release, gate: Caller, method: str, path: str
) -> None:
    response = getattr(gate.client(), method)(path.format(id=active.pk), {"reason": "x"}, format="json")
    assert response.status_code == 403
    assert "rollout-gate token" in response.json()["detail"]
    assert Release.objects.get(pk=active.pk).state == "active"


def test_a_gate_token_reads_its_routes_gates(active: Release, gate: Caller) -> None:
    client = gate.client()
    assert client.get(f"/api/v1/releases/{active.pk}/analysis").status_code == 200
    assert client.get("/api/v1/routes/contract-summaries/analysis").json()["release"] == active.pk
    assert flagger_post("confirm-rollout", {"route": "contract-summaries"}, client=client).status_code == 200


def test_another_routes_gate_token_gets_404(active: Release, proposer: Any) -> None:
    other = issue_gate_token(["elsewhere"], username="other-gate").client()
    assert other.get(f"/api/v1/releases/{active.pk}/analysis").status_code == 404
    assert other.get("/api/v1/routes/contract-summaries/analysis").status_code == 404
    meta = {"route": "contract-summaries", "release": str(active.pk)}
    for hook in ("confirm-rollout", "confirm-promotion", "rollback"):
        assert flagger_post(hook, meta, client=other).status_code == 404


def test_a_release_named_on_the_wrong_route_is_not_found(active: Release, proposer: Any, viewer: Any) -> None:
    """An unscoped token sees both routes; the canary's route and release must agree."""
    from releases_app.services import release_create

    other = make_version("support-chat", example("support-chat-eagle3"))
    elsewhere = release_create(route="support-chat", candidate_version=other.number, actor=proposer)
    meta = {
        "route": "contract-summaries",
        "release": str(elsewhere.pk),
        "token": make_token(viewer, "viewer").key,
    }
    response = flagger_post("confirm-rollout", meta)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")


def test_an_ordinary_viewer_token_and_session_may_read_the_gates(active: Release, viewer: Any) -> None:
    token = make_token(viewer, "viewer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(f"/api/v1/releases/{active.pk}/analysis").status_code == 200
    session = APIClient()
    session.force_login(viewer)
    assert session.get("/api/v1/routes/contract-summaries/analysis").status_code == 200


def test_no_credentials_is_401(active: Release) -> None:
    assert APIClient().get(f"/api/v1/releases/{active.pk}/analysis").status_code == 401
    assert flagger_post("confirm-rollout", {"route": "contract-summaries"}).status_code == 401


def test_flagger_sends_the_token_in_metadata(active: Release, gate: Caller) -> None:
    meta = {"route": "contract-summaries", "release": str(active.pk), "token": gate.key}
    response = flagger_post("confirm-promotion", meta)
    assert response.status_code == 200, response.json()
    assert "token" not in response.json()


def test_a_revoked_or_wrong_metadata_token_is_401(active: Release, gate: Caller) -> None:
    assert (
        flagger_post("confirm-rollout", {"route": "contract-summaries", "token": "nope.nope"}).status_code
        == 401
    )
    token_revoke(token=gate.token, actor=SYSTEM)
    response = flagger_post("confirm-rollout", {"route": "contract-summaries", "token": gate.key})
    assert response.status_code == 401


def test_a_metadata_token_is_only_taken_by_the_flagger_hooks(active: Release, gate: Caller) -> None:
    """The release API reads the header only: a body token there authenticates nothing."""
    response = APIClient().get(f"/api/v1/releases/{active.pk}/analysis", {"token": str(gate.key)})
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"routes": []}, "routes"), ({"role": "operator"}, "role"), ({"purpose": "deploy"}, "purpose")],
)
def test_a_gate_token_must_be_scoped_and_read_only(operator: Any, kwargs: dict[str, Any], field: str) -> None:
    from kernel.errors import DomainError

    args: dict[str, Any] = {"role": "viewer", "routes": ["contract-summaries"], "purpose": "rollout_gate"}
    with pytest.raises(DomainError) as refused:
        token_issue(user=operator, actor=SYSTEM, **{**args, **kwargs})
    assert [e.path for e in refused.value.errors] == [field]


def test_a_gate_token_is_issued_through_the_api(viewer: Any) -> None:
    client = APIClient()
    client.force_login(viewer)
    body = {"role": "viewer", "routes": ["contract-summaries"], "purpose": "rollout_gate", "name": "argo"}
    response = client.post("/api/v1/tokens/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["purpose"] == "rollout_gate"
    unscoped = client.post("/api/v1/tokens/", {**body, "routes": []}, format="json")
    assert unscoped.status_code == 400
    assert unscoped.json()["errors"][0]["path"] == "routes"


def test_a_gate_token_is_issued_from_the_tokens_page(viewer: Any) -> None:
    from django.test import Client

    from accounts_app.models import ApiToken

    client = Client()
    client.force_login(viewer)
    form = {"role": "viewer", "routes": "contract-summaries", "purpose": "rollout_gate", "name": "flagger"}
    response = client.post("/tokens/", form)
    assert response.status_code == 201
    token = ApiToken.objects.get(name="flagger")
    assert token.purpose == "rollout_gate" and token.route_slugs == ["contract-summaries"]
    assert "rollout gate only" in client.get("/tokens/").content.decode()
    refused = client.post("/tokens/", {**form, "routes": "", "name": "unscoped"})
    assert refused.status_code == 400
    assert not ApiToken.objects.filter(name="unscoped").exists()
