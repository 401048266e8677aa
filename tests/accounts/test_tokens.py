from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts_app.models import ApiToken, UserRole
from accounts_app.permissions import effective_role
from audit_app.actors import Actor
from audit_app.models import AuditEvent
from tests.support.actors import Caller
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_createtoken_prints_only_the_token_and_it_authenticates() -> None:
    out, err = StringIO(), StringIO()
    call_command(
        "createtoken",
        "ci",
        "--role",
        "operator",
        "--route",
        "support-chat",
        "--create-user",
        stdout=out,
        stderr=err,
    )
    key = out.getvalue().strip()
    assert out.getvalue() == key + "\n"
    prefix, _, secret = key.partition(".")
    token = ApiToken.objects.get(prefix=prefix)
    assert token.user.username == "ci"
    assert (token.role, token.route_slugs) == ("operator", ["support-chat"])
    assert _client(key).get("/api/v1/releases/").status_code == 200
    assert AuditEvent.objects.filter(action="token.issued", object_id=prefix).exists()
    assert len(secret) >= 40


def test_createtoken_refuses_an_unknown_user_without_create_user() -> None:
    with pytest.raises(CommandError, match="--create-user"):
        call_command("createtoken", "ghost", "--role", "viewer")


def test_createtoken_refuses_a_role_above_the_users(viewer: Any) -> None:
    with pytest.raises(CommandError, match="can't exceed"):
        call_command("createtoken", viewer.username, "--role", "admin")


def test_tokens_are_stored_hashed_and_the_key_appears_nowhere_in_the_database(viewer: Any) -> None:
    key = make_token(viewer, "viewer").key
    secret = key.split(".", 1)[1]
    with connection.cursor() as cur:
        cur.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' "
            "AND data_type IN ('text', 'character varying', 'jsonb')"
        )
        columns = cur.fetchall()
        for table, column in columns:
            cur.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}"::text LIKE %s', [f"%{secret}%"])  # noqa: S608
            assert cur.fetchone()[0] == 0, f"{table}.{column} holds the secret"


def test_revoked_expired_and_wrong_keys_are_refused_with_401(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    assert _client(issued.key).get("/api/v1/audit/verify").status_code == 200
    assert _client(issued.key + "x").get("/api/v1/audit/verify").status_code == 401
    assert _client("garbage").get("/api/v1/audit/verify").status_code == 401
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = _client(issued.key).get("/api/v1/audit/verify")
    assert expired.status_code == 401
    assert "expired" in expired.json()["detail"]
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=None, revoked_at=timezone.now())
    assert "revoked" in _client(issued.key).get("/api/v1/audit/verify").json()["detail"]


def test_an_inactive_users_token_is_refused(viewer: Any) -> None:
    key = make_token(viewer, "viewer").key
    get_user_model().objects.filter(pk=viewer.pk).update(is_active=False)
    assert _client(key).get("/api/v1/audit/verify").status_code == 401


def test_a_token_is_capped_by_its_users_current_role(approver: Any) -> None:
    issued = make_token(approver, "approver")
    UserRole.objects.filter(user=approver).update(role="viewer")
    fresh = ApiToken.objects.select_related("user").get(pk=issued.token.pk)
    assert effective_role(Actor.for_user(fresh.user, fresh)) == "viewer"
    assert _client(issued.key).post("/api/v1/releases/", {}, format="json").status_code == 403


def test_issue_over_the_api_shows_the_key_once(operator: Any) -> None:
    client = Caller("o", user=operator).client()
    created = client.post("/api/v1/tokens/", {"role": "operator", "routes": ["support-chat"]}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert created["Cache-Control"] == "no-store"
    listed = client.get(f"/api/v1/tokens/{created.json()['id']}/").json()
    assert "key" not in listed
    assert listed["routes"] == ["support-chat"]
    assert _client(key).get("/api/v1/releases/").status_code == 200


def test_a_user_cannot_issue_a_token_above_their_role(viewer: Any) -> None:
    response = Caller("v", user=viewer).client().post("/api/v1/tokens/", {"role": "approver"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "role"


def test_only_admins_issue_tokens_for_others(operator: Any, viewer: Any, admin: Any) -> None:
    body = {"role": "viewer", "user": viewer.username}
    assert Caller("o", user=operator).client().post("/api/v1/tokens/", body, format="json").status_code == 403
    made = Caller("a", user=admin).client().post("/api/v1/tokens/", body, format="json")
    assert made.status_code == 201
    assert made.json()["user"] == viewer.username


def test_users_see_and_revoke_only_their_own_tokens(operator: Any, viewer: Any, admin: Any) -> None:
    theirs = make_token(viewer, "viewer").token
    client = Caller("o", user=operator).client()
    assert client.get(f"/api/v1/tokens/{theirs.pk}/").status_code == 404
    assert client.post(f"/api/v1/tokens/{theirs.pk}/revoke", {}, format="json").status_code == 404
    assert theirs.pk not in [t["id"] for t in client.get("/api/v1/tokens/").json()["results"]]
    admin_client = Caller("a", user=admin).client()
    revoked = admin_client.post(f"/api/v1/tokens/{theirs.pk}/revoke", {"reason": "left"}, format="json")
    assert revoked.status_code == 200
    assert revoked.json()["state"] == "revoked"
    again = admin_client.post(f"/api/v1/tokens/{theirs.pk}/revoke", {}, format="json")
    assert again.status_code == 409
    event = AuditEvent.objects.get(action="token.revoked")
    assert (event.reason, event.actor_label) == ("left", f"user:{admin.username}")


def test_last_used_is_recorded(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    _client(issued.key).get("/api/v1/audit/verify")
    assert ApiToken.objects.get(pk=issued.token.pk).last_used_at is not None
