"""Route scope on writes as on reads: a token scoped to `contract-summaries` writes nothing
on another route (404, as if it did not exist) and nothing fleet-wide (workers, tokens,
bootstrap tokens: 403), whatever its role. Each write endpoint is tried with a scoped
admin token (the highest role, so only the scope can be what refuses) and the database is
checked unchanged: no row, no state change, no audit event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import override_settings

from accounts_app.models import ApiToken
from audit_app.actors import Actor
from audit_app.models import AuditEvent
from benchmarks_app.models import BootstrapToken, Run, Worker
from benchmarks_app.services.workers import bootstrap_token_create, bootstrap_token_revoke
from contracts_app.models import Route
from kernel.errors import DomainError
from releases_app.models import Release
from tests.support.actors import PIPELINE_ROUTE, Caller
from tests.support.factories import example, make_token, make_user, variant
from tests.support.releases import activate, cosmetic_change
from tests.support.workers import openai_run, register

pytestmark = pytest.mark.django_db

OTHER = "support-chat"
NO_BROKER = "redis://127.0.0.1:9/0"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """Nobody here signs in with a password; PBKDF2 would cost a second per user."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class World:
    """Another route with everything a write can touch, and fleet-wide objects."""

    active: Release  # active: can be rolled back
    awaiting: Release  # awaiting review: approve, reject, cancel
    run: Run
    worker: Worker
    token: ApiToken  # someone else's token
    bootstrap: BootstrapToken


@pytest.fixture
def world(proposer: Any, approver: Any, admin: Any) -> World:
    from tests.support.factories import make_version

    v1 = make_version(OTHER, _contract(OTHER))
    active = activate(v1, proposer, approver)
    route = Route.objects.get(slug=OTHER)
    v2 = cosmetic_change(route)
    from releases_app.services import release_create

    awaiting = release_create(route=route, candidate_version=v2.number, actor=proposer)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run((v1, v2))
    worker = register("gpu-shared").worker
    token = make_token(approver, "approver").token
    bootstrap, _ = bootstrap_token_create(note="fleet")
    return World(active, awaiting, run, worker, token, bootstrap)


@pytest.fixture
def scoped_admin(db: None) -> Caller:
    user = make_user("sam-scoped-admin", None, is_superuser=True, is_staff=True)
    issued = make_token(user, "admin", [PIPELINE_ROUTE])
    return Caller("scoped admin", user=user, key=issued.key, token=issued.token)


def _contract(route: str) -> dict[str, Any]:
    return variant(example(), route=route)


REASON = {"reason": "x"}
ENDPOINTS = {
    "baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
    "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"},
}
RUN = {"baseline_version": 1, "engine": "openai", "endpoints": ENDPOINTS}
# (name, status, method, path with {awaiting}/{active}/{run}/{worker}/{token} ids, body)
WRITES: list[tuple[str, int, str, str, Any]] = [
    ("create route", 404, "post", "/api/v1/routes/", {"slug": "brand-new"}),
    ("first version creates a route", 404, "post", "/api/v1/routes/brand-new/versions/", "brand-new"),
    ("upload a version", 404, "post", f"/api/v1/routes/{OTHER}/versions/", OTHER),
    ("propose a release", 404, "post", "/api/v1/releases/", {"route": OTHER, "candidate_version": 2}),
    ("approve", 404, "post", "/api/v1/releases/{awaiting}/approve", REASON),
    ("reject", 404, "post", "/api/v1/releases/{awaiting}/reject", REASON),
    ("cancel", 404, "post", "/api/v1/releases/{awaiting}/cancel", REASON),
    ("rollback", 404, "post", "/api/v1/releases/{active}/rollback", REASON),
    ("create a run", 404, "post", "/api/v1/runs/", {"route": OTHER, "candidate_version": 2, **RUN}),
    ("cancel a run", 404, "post", "/api/v1/runs/{run}/cancel", REASON),
    ("revoke a worker", 403, "post", "/api/v1/workers/{worker}/revoke", REASON),
    ("issue a token", 403, "post", "/api/v1/tokens/", {"role": "viewer", "name": "x"}),
    ("revoke a token", 403, "post", "/api/v1/tokens/{token}/revoke", REASON),
    ("delete a token", 403, "delete", "/api/v1/tokens/{token}/", None),
]  # fmt: skip


def _request(w: World, path: str, body: Any) -> tuple[str, Any]:
    """The path with the world's ids; a route slug as body is a contract for that route."""
    ids = {"awaiting": w.awaiting.pk, "active": w.active.pk, "run": w.run.pk}
    ids |= {"worker": w.worker.pk, "token": w.token.pk}
    document = variant(_contract(body), description="another") if isinstance(body, str) else body
    return path.format(**ids), document


def _state(w: World) -> tuple[Any, ...]:
    return (
        AuditEvent.objects.count(),
        sorted(Route.objects.values_list("slug", flat=True)),
        sorted(Release.objects.values_list("id", "state")),
        sorted(Run.objects.values_list("id", "state")),
        list(Worker.objects.values_list("id", "revoked_at")),
        sorted(ApiToken.objects.values_list("id", "revoked_at")),
    )


@pytest.mark.parametrize(("name", "status", "method", "path", "body"), WRITES, ids=[w[0] for w in WRITES])
def test_a_scoped_token_writes_nothing_outside_its_scope(
    world: World,
    scoped_admin: Caller,
    pipeline: Caller,
    name: str,
    status: int,
    method: str,
    path: str,
    body: Any,
) -> None:
    url, data = _request(world, path, body)
    before = _state(world)
    for caller in (scoped_admin, pipeline):
        with override_settings(CELERY_BROKER_URL=NO_BROKER):
            response = getattr(caller.client(), method)(url, data, format="json")
        # The pipeline is an operator: where the scope allows nothing anyway, its role may
        # answer first (403); the scoped admin's refusal is the scope's alone.
        expected = {status} if caller is scoped_admin else {status, 403}
        assert response.status_code in expected, (caller.name, name, response.content)
        assert response["Content-Type"].startswith("application/problem+json")
        assert _state(world) == before, (caller.name, name)


def test_the_refusals_are_the_scopes_own(world: World, scoped_admin: Caller, admin: Any) -> None:
    """The same admin with an unscoped token may do what the scoped one was refused."""
    unscoped = Caller("admin", key=make_token(scoped_admin.user, "admin").key)
    client = unscoped.client()
    assert client.post("/api/v1/routes/", {"slug": "brand-new"}, format="json").status_code == 201
    revoked = client.post(f"/api/v1/workers/{world.worker.pk}/revoke", {"reason": "retired"}, format="json")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    # And the scoped one still creates its own route.
    own = scoped_admin.client().post("/api/v1/routes/", {"slug": PIPELINE_ROUTE}, format="json")
    assert own.status_code == 201


def test_a_scoped_token_cannot_issue_or_revoke_bootstrap_tokens(world: World, scoped_admin: Caller) -> None:
    """Bootstrap tokens have no API (manage.py only); the services refuse a scoped actor."""
    actor = Actor.for_user(scoped_admin.user, scoped_admin.token)
    count = BootstrapToken.objects.count()
    with pytest.raises(DomainError) as refused:
        bootstrap_token_create(actor=actor, note="sneaky")
    assert refused.value.status == 403 and BootstrapToken.objects.count() == count
    with pytest.raises(DomainError) as refused:
        bootstrap_token_revoke(token=world.bootstrap, actor=actor)
    assert refused.value.status == 403
    world.bootstrap.refresh_from_db()
    assert world.bootstrap.revoked_at is None


def test_scoped_tokens_see_no_other_routes_run_ids_in_the_workers_list(
    world: World, scoped_admin: Caller, admin: Any
) -> None:
    from benchmarks_app.services.lifecycle import run_start

    run_start(run_id=world.run.pk, worker=world.worker, attempt=1)
    listed = {w["id"]: w for w in scoped_admin.client().get("/api/v1/workers/").json()}
    assert listed[world.worker.pk]["current_run"] is None
    detail = scoped_admin.client().get(f"/api/v1/workers/{world.worker.pk}/").json()
    assert detail["current_run"] is None
    # Unscoped callers still see it; so does a token scoped to the run's own route.
    everyone = Caller("admin", user=admin).client().get("/api/v1/workers/").json()
    assert {w["id"]: w for w in everyone}[world.worker.pk]["current_run"] == world.run.pk
    own = Caller("own", key=make_token(scoped_admin.user, "viewer", [OTHER]).key).client()
    assert own.get(f"/api/v1/workers/{world.worker.pk}/").json()["current_run"] == world.run.pk
