"""TokenFilterSet through `GET /api/v1/tokens/`: role, state, owner; bad values refused."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts_app.models import ApiToken
from accounts_app.services import token_revoke
from tests.support.actors import Caller
from tests.support.api import assert_filter_refused
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def tokens(admin: Any, operator: Any, viewer: Any) -> dict[str, ApiToken]:
    active = make_token(operator, "operator").token
    expired = make_token(operator, "viewer").token
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    revoked = token_revoke(token=make_token(viewer, "viewer").token, actor=admin, reason="left")
    return {"active": active, "expired": expired, "revoked": revoked}


def ids(caller: Caller, query: dict[str, str]) -> set[int]:
    response = caller.client().get("/api/v1/tokens/", query)
    assert response.status_code == 200, response.content
    return {t["id"] for t in response.json()["results"]}


def test_role(tokens: dict[str, ApiToken], admin: Any) -> None:
    assert ids(Caller("a", user=admin), {"role": "operator"}) == {tokens["active"].pk}
    assert ids(Caller("a", user=admin), {"role": "viewer"}) == {tokens["expired"].pk, tokens["revoked"].pk}


def test_state(tokens: dict[str, ApiToken], admin: Any) -> None:
    caller = Caller("a", user=admin)
    for state, token in tokens.items():
        assert ids(caller, {"state": state}) == {token.pk}, state


def test_owner_and_only_what_the_caller_may_see(
    tokens: dict[str, ApiToken], admin: Any, operator: Any
) -> None:
    assert ids(Caller("a", user=admin), {"user": "vera-viewer"}) == {tokens["revoked"].pk}
    # A non-admin filtering for someone else's tokens still sees only their own: none.
    assert ids(Caller("o", user=operator), {"user": "vera-viewer"}) == set()
    assert ids(Caller("o", user=operator), {"state": "expired"}) == {tokens["expired"].pk}


@pytest.mark.parametrize(("param", "value"), [("role", "root"), ("state", "lost"), ("user", "u" * 151)])
def test_the_api_refuses_a_bad_value_naming_it(
    tokens: dict[str, ApiToken], admin: Any, param: str, value: str
) -> None:
    assert_filter_refused(Caller("a", user=admin).client().get("/api/v1/tokens/", {param: value}), param)
