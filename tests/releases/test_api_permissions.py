"""Every releases / audit / tokens endpoint by every kind of caller: who gets what status.

Callers: anonymous, viewer, operator (not the proposer), approver, admin, and pipeline
(an operator token scoped to the release's route). Cross-route scope is in
test_api_scope.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create
from tests.support.actors import Caller
from tests.support.factories import make_token
from tests.support.releases import activate, cosmetic_change

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "viewer", "operator", "approver", "admin", "pipeline"]


@dataclass
class World:
    route: Route
    caller: Caller
    proposer: Any
    approver: Any

    def awaiting(self) -> Release:
        return release_create(
            route=self.route, candidate_version=cosmetic_change(self.route).number, actor=self.proposer
        )

    def active(self) -> Release:
        return activate(cosmetic_change(self.route), self.proposer, self.approver)

    def own_token_id(self) -> int:
        user = self.caller.user or self.proposer
        return make_token(user, "viewer").token.pk


@dataclass
class Endpoint:
    method: str
    path: Callable[[World], str]
    body: Callable[[World], dict[str, Any]] | None = None


ENDPOINTS: dict[str, Endpoint] = {
    "releases:list": Endpoint("get", lambda w: "/api/v1/releases/"),
    "releases:create": Endpoint(
        "post",
        lambda w: "/api/v1/releases/",
        lambda w: {"route": w.route.slug, "candidate_version": cosmetic_change(w.route).number},
    ),
    "releases:detail": Endpoint("get", lambda w: f"/api/v1/releases/{w.awaiting().pk}/"),
    "releases:approve": Endpoint(
        "post", lambda w: f"/api/v1/releases/{w.awaiting().pk}/approve", lambda w: {"reason": "lgtm"}
    ),
    "releases:reject": Endpoint(
        "post", lambda w: f"/api/v1/releases/{w.awaiting().pk}/reject", lambda w: {"reason": "no"}
    ),
    "releases:cancel": Endpoint(
        "post", lambda w: f"/api/v1/releases/{w.awaiting().pk}/cancel", lambda w: {"reason": "withdrawn"}
    ),
    "releases:rollback": Endpoint(
        "post", lambda w: f"/api/v1/releases/{w.active().pk}/rollback", lambda w: {"reason": "regressed"}
    ),
    "audit:list": Endpoint("get", lambda w: "/api/v1/audit/"),
    "audit:verify": Endpoint("get", lambda w: "/api/v1/audit/verify"),
    "tokens:list": Endpoint("get", lambda w: "/api/v1/tokens/"),
    "tokens:issue": Endpoint("post", lambda w: "/api/v1/tokens/", lambda w: {"role": "viewer"}),
    "tokens:detail": Endpoint("get", lambda w: f"/api/v1/tokens/{w.own_token_id()}/"),
    "tokens:delete": Endpoint("delete", lambda w: f"/api/v1/tokens/{w.own_token_id()}/"),
    "tokens:revoke": Endpoint("post", lambda w: f"/api/v1/tokens/{w.own_token_id()}/revoke", lambda w: {}),
}

#                    anonymous viewer operator approver admin pipeline
EXPECTED: dict[str, tuple[int, ...]] = {
    "releases:list": (401, 200, 200, 200, 200, 200),
    "releases:create": (401, 403, 201, 201, 201, 201),
    "releases:detail": (401, 200, 200, 200, 200, 200),
    "releases:approve": (401, 403, 403, 200, 200, 403),
    "releases:reject": (401, 403, 403, 200, 200, 403),
    # operator and pipeline aren't the proposer: any operator of the route may cancel it
    "releases:cancel": (401, 403, 200, 200, 200, 200),
    "releases:rollback": (401, 403, 403, 200, 200, 403),
    "audit:list": (401, 200, 200, 200, 200, 200),
    "audit:verify": (401, 200, 200, 200, 200, 200),
    # tokens can't manage tokens (unless unscoped admin tokens): the pipeline gets 403
    "tokens:list": (401, 200, 200, 200, 200, 403),
    "tokens:issue": (401, 201, 201, 201, 201, 403),
    "tokens:detail": (401, 200, 200, 200, 200, 403),
    "tokens:delete": (401, 204, 204, 204, 204, 403),
    "tokens:revoke": (401, 200, 200, 200, 200, 403),
}

CASES = [(endpoint, role, EXPECTED[endpoint][i]) for endpoint in ENDPOINTS for i, role in enumerate(ROLES)]


@pytest.fixture
def world(
    request: pytest.FixtureRequest, route_v1: Route, proposer: Any, approver: Any
) -> Callable[[str], World]:
    def make(role: str) -> World:
        if role == "anonymous":
            caller = Caller("anonymous")
        elif role == "pipeline":
            caller = request.getfixturevalue("pipeline")
        else:
            # "approver" acts as a second approver: the route's first release used `approver`.
            user = request.getfixturevalue("second_approver" if role == "approver" else role)
            caller = Caller(role, user=user)
        return World(route=route_v1, caller=caller, proposer=proposer, approver=approver)

    return make


@pytest.mark.parametrize(("endpoint", "role", "expected"), CASES, ids=[f"{e}-{r}" for e, r, _ in CASES])
def test_endpoint_answers_role(
    world: Callable[[str], World], endpoint: str, role: str, expected: int
) -> None:
    w = world(role)
    spec = ENDPOINTS[endpoint]
    path = spec.path(w)
    body = spec.body(w) if spec.body else None
    response = getattr(w.caller.client(), spec.method)(path, body, format="json")
    assert response.status_code == expected, response.content
    if expected >= 400:
        assert response["Content-Type"] == "application/problem+json"
