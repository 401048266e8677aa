"""A user limited to some routes (UserRole.route_slugs): the rule in one place
(accounts_app/permissions.py routes_in_scope), a token never widening its user, tokens
issued within the user's routes on every path (page, API, command), and what belongs to
no route refused (issue 25 point 3)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts_app.models import ApiToken, UserRole
from accounts_app.permissions import can_access_route, is_fleet_admin, routes_in_scope, visible_routes
from accounts_app.services import token_issue, user_set_routes
from audit_app.actors import Actor
from audit_app.models import AuditEvent
from benchmarks_app.services.workers import worker_revoke
from contracts_app.models import Route
from kernel.errors import DomainError, Forbidden
from tests.support.actors import Caller
from tests.support.benchmarked import register_worker
from tests.support.factories import example, make_token, make_user, make_version

pytestmark = pytest.mark.django_db

SYSTEM = Actor.system("system:tests")


def _scoped(username: str, role: str, routes: list[str]) -> Any:
    user = make_user(username)
    UserRole.objects.create(user=user, role=role, route_slugs=routes)
    return user


def test_a_tokens_scope_is_intersected_with_its_users() -> None:
    user = _scoped("ursula", "operator", ["a-route", "b-route"])
    assert routes_in_scope(user) == ["a-route", "b-route"]
    # Issued while the user could see more, then the user's scope shrank: the token shrinks.
    UserRole.objects.filter(user=user).update(route_slugs=["a-route", "b-route", "c-route"])
    user.refresh_from_db()
    overlapping = make_token(user, "viewer", ["b-route", "c-route"]).token
    disjoint = make_token(user, "viewer", ["c-route"]).token
    UserRole.objects.filter(user=user).update(route_slugs=["a-route", "b-route"])
    user.refresh_from_db()
    assert routes_in_scope(Actor.for_user(user, overlapping)) == ["b-route"]
    assert routes_in_scope(Actor.for_user(user, disjoint)) == []  # no route at all, not every route
    assert not can_access_route(Actor.for_user(user, disjoint), "c-route")


def test_an_unscoped_tokens_scope_is_its_users_and_an_unscoped_users_is_the_tokens() -> None:
    free = make_user("frank", "operator")
    token = make_token(free, "viewer", ["b-route"]).token
    assert routes_in_scope(free) is None
    assert routes_in_scope(Actor.for_user(free, token)) == ["b-route"]
    scoped = _scoped("sara", "operator", [])
    unscoped_token = make_token(scoped, "viewer").token  # issued while she saw every route
    UserRole.objects.filter(user=scoped).update(route_slugs=["a-route"])
    scoped.refresh_from_db()
    assert routes_in_scope(Actor.for_user(scoped, unscoped_token)) == ["a-route"]


def test_a_superuser_is_never_scoped_and_an_empty_scope_is_every_route(admin: Any) -> None:
    UserRole.objects.create(user=admin, role="admin", route_slugs=["a-route"])
    admin.refresh_from_db()
    assert routes_in_scope(admin) is None and is_fleet_admin(admin)
    everyone = _scoped("eve", "viewer", [])
    assert routes_in_scope(everyone) is None


def test_visible_routes_keeps_a_scoped_sessions_routes() -> None:
    make_version("contract-summaries", example())
    make_version("support-chat", example("support-chat-eagle3"))
    user = _scoped("cara", "viewer", ["support-chat"])
    assert [r.slug for r in visible_routes(user, Route.objects.all())] == ["support-chat"]
    client = Client()
    client.force_login(user)
    listed = client.get("/api/v1/routes/").json()
    assert [r["slug"] for r in listed["results"]] == ["support-chat"]
    assert client.get("/routes/contract-summaries/").status_code == 404
    assert client.get("/api/v1/routes/contract-summaries/").status_code == 404
    assert client.get("/routes/support-chat/").status_code == 200


def test_a_scoped_user_issues_tokens_within_their_routes_only() -> None:
    user = _scoped("tess", "operator", ["support-chat", "chat-eval"])
    issued = token_issue(user=user, role="viewer", routes=["support-chat"], actor=user)
    assert issued.token.route_slugs == ["support-chat"]
    with pytest.raises(DomainError) as outside:
        token_issue(user=user, role="viewer", routes=["support-chat", "contract-summaries"], actor=user)
    assert outside.value.errors[0].path == "routes"
    assert (
        "limited to routes chat-eval, support-chat; not contract-summaries" in outside.value.errors[0].message
    )
    with pytest.raises(DomainError) as every:
        token_issue(user=user, role="viewer", routes=[], actor=user)
    assert (
        every.value.errors[0].path == "routes" and "name the token's routes" in every.value.errors[0].message
    )


def test_the_tokens_page_api_and_command_hold_a_token_within_its_users_routes() -> None:
    user = _scoped("tom", "operator", ["support-chat"])
    page = Client()
    page.force_login(user)
    refused = page.post("/tokens/", {"name": "ci", "role": "viewer", "routes": "contract-summaries"})
    assert refused.status_code == 400 and "tom is limited to routes support-chat" in refused.content.decode()
    assert (
        page.post("/tokens/", {"name": "ci", "role": "viewer", "routes": "support-chat"}).status_code == 201
    )

    api = Caller("t", user=user).client()
    body = {"role": "viewer", "routes": ["contract-summaries"]}
    answer = api.post("/api/v1/tokens/", body, format="json")
    assert answer.status_code == 400 and answer.json()["errors"][0]["path"] == "routes"
    ok = api.post("/api/v1/tokens/", {"role": "viewer", "routes": ["support-chat"]}, format="json")
    assert ok.status_code == 201

    with pytest.raises(CommandError, match="limited to routes support-chat"):
        call_command(
            "createtoken", "tom", "--role", "viewer", "--route", "contract-summaries", stdout=StringIO()
        )
    assert sorted(t.route_slugs[0] for t in ApiToken.objects.filter(user=user)) == ["support-chat"] * 2


def test_a_scoped_admin_manages_only_their_own_tokens_and_no_fleet(operator: Any) -> None:
    boss = _scoped("bea", "admin", ["support-chat"])
    theirs = make_token(operator, "viewer").token
    with pytest.raises(Forbidden):
        token_issue(user=operator, role="viewer", routes=["support-chat"], actor=boss)
    client = Caller("b", user=boss).client()
    assert client.get("/api/v1/tokens/").json()["count"] == 0
    assert client.get(f"/api/v1/tokens/{theirs.pk}/").status_code == 404
    assert client.post(f"/api/v1/tokens/{theirs.pk}/revoke", {}, format="json").status_code == 404
    worker = register_worker("gpu-box-9")
    with pytest.raises(Forbidden, match="You are scoped to routes support-chat"):
        worker_revoke(worker=worker, actor=boss, reason="")
    assert client.post(f"/api/v1/workers/{worker.pk}/revoke", {}, format="json").status_code == 403


def test_user_set_routes_audits_only_a_move_and_setrole_sets_and_lifts_a_scope() -> None:
    user = make_user("rita", "viewer")
    user_set_routes(user=user, routes=["support-chat"], actor=SYSTEM)
    user_set_routes(user=user, routes=["support-chat"], actor=SYSTEM)  # no move, no event
    moves = AuditEvent.objects.filter(action="user.routes_changed", object_id="rita")
    assert [(e.before["routes"], e.after["routes"]) for e in moves] == [([], ["support-chat"])]
    with pytest.raises(DomainError) as bad:
        user_set_routes(user=user, routes=["Not A Slug"], actor=SYSTEM)
    assert bad.value.errors[0].path == "routes" and "is not a route slug" in bad.value.errors[0].message

    out = StringIO()
    call_command("setrole", "rita", "operator", "--routes", "chat-eval, support-chat", stdout=out)
    assert "rita: viewer → operator (chat-eval, support-chat)" in out.getvalue()
    call_command("setrole", "rita", "operator", "--routes", "", stdout=out)
    assert "(every route)" in out.getvalue()
    assert UserRole.objects.get(user=user).route_slugs == []
    with pytest.raises(CommandError, match="is not a route slug"):
        call_command("setrole", "rita", "admin", "--routes", "BAD!", stdout=StringIO())
    assert UserRole.objects.get(user=user).role == "operator"  # nothing half-done
