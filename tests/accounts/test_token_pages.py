"""The API tokens page (accounts_app/views.py): users issue and revoke their own tokens,
admins anyone's; a new key is on the issuing response once (no-store) and never again."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts_app.models import ApiToken
from accounts_app.models.tokens import hash_key
from audit_app.models import AuditEvent

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _key(html: str) -> str:
    match = re.search(r"<pre class=\"token-key\" data-token-key>([^<]+)</pre>", html)
    assert match, "no key on the page"
    return match.group(1)


def test_a_user_issues_a_scoped_token_and_sees_its_key_once(operator: Any) -> None:
    client = _client(operator)
    response = client.post(
        "/tokens/", {"name": "ci", "role": "operator", "routes": "contract-summaries, other"}
    )
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    key = _key(response.content.decode())
    token = ApiToken.objects.get(name="ci")
    assert token.user == operator and token.route_slugs == ["contract-summaries", "other"]
    assert token.hashed_key == hash_key(key) and key not in token.hashed_key
    assert AuditEvent.objects.filter(action="token.issued", object_id=token.prefix).exists()
    again = client.get("/tokens/").content.decode()
    assert key not in again and token.prefix in again
    assert "operator · contract-summaries, other" in again and "never" in again  # scope, last used


def test_a_token_role_above_the_user_is_refused_on_the_page(viewer: Any) -> None:
    response = _client(viewer).post("/tokens/", {"role": "admin"})
    assert response.status_code == 400
    assert "a token&#x27;s role can&#x27;t exceed its user&#x27;s" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_a_bad_route_slug_and_a_past_expiry_are_refused(operator: Any) -> None:
    bad_slug = _client(operator).post("/tokens/", {"role": "viewer", "routes": "Not_A Slug!"})
    assert bad_slug.status_code == 400 and "is not a route slug" in bad_slug.content.decode()
    past = _client(operator).post("/tokens/", {"role": "viewer", "expires_at": "2001-01-01 00:00"})
    assert past.status_code == 400 and "the expiry must be in the future" in past.content.decode()
    assert not ApiToken.objects.exists()


def test_a_user_may_not_issue_for_someone_else(operator: Any, viewer: Any) -> None:
    response = _client(operator).post("/tokens/", {"role": "viewer", "user": viewer.username})
    assert response.status_code == 403
    assert "Only an admin can issue tokens for another user" in response.content.decode()
    # A username that does not exist reads the same: a non-admin learns nothing about users.
    unknown = _client(operator).post("/tokens/", {"role": "viewer", "user": "nobody-here"})
    assert unknown.status_code == 403 and "nobody-here" not in unknown.content.decode()
    assert not ApiToken.objects.exists()


def test_an_admin_issues_for_another_user_and_revokes_it(admin: Any, operator: Any) -> None:
    client = _client(admin)
    assert client.post("/tokens/", {"role": "operator", "user": operator.username}).status_code == 201
    token = ApiToken.objects.get(user=operator)
    assert operator.username in client.get("/tokens/").content.decode()
    response = client.post(f"/tokens/{token.pk}/revoke", {"reason": "rotated"}, follow=True)
    assert "revoked" in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert AuditEvent.objects.get(action="token.revoked", object_id=token.prefix).reason == "rotated"
    unknown = client.post("/tokens/", {"role": "viewer", "user": "nobody-here"})
    assert unknown.status_code == 400 and "no user &#x27;nobody-here&#x27;" in unknown.content.decode()


def test_a_user_revokes_their_own_but_not_anothers(operator: Any, viewer: Any) -> None:
    _client(viewer).post("/tokens/", {"role": "viewer", "name": "mine"})
    theirs = ApiToken.objects.get(user=viewer)
    assert theirs.prefix not in _client(operator).get("/tokens/").content.decode()
    assert _client(operator).post(f"/tokens/{theirs.pk}/revoke").status_code == 404
    assert _client(viewer).post(f"/tokens/{theirs.pk}/revoke").status_code == 302
    theirs.refresh_from_db()
    assert theirs.revoked_at is not None
    twice = _client(viewer).post(f"/tokens/{theirs.pk}/revoke", follow=True)
    assert "Not revoked: Token" in twice.content.decode() and "already revoked" in twice.content.decode()


def test_revoking_needs_post(operator: Any) -> None:
    _client(operator).post("/tokens/", {"role": "viewer"})
    token = ApiToken.objects.get()
    assert _client(operator).get(f"/tokens/{token.pk}/revoke").status_code == 405
