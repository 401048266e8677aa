"""The OpenAPI schema as a contract: schemathesis against the schema a real gunicorn serves
(DEBUG off, behind a proxy's headers, this run's test database), over a seeded world, as
production answers it. No 5xx, no status code or content type the schema doesn't list for
the operation, no body off its schema.

Every operation runs; each draws its path parameters from the world half the time (so it
reaches its real code path, not a 404) and generates them the other half, with positive
and negative data. Callers are the ones production has: an admin token, the claiming
worker's token on the worker protocol, a bootstrap token on registration. Throttles are off
for the run (the per-token rate would cap it). Destructive calls that would lock the test
out (revoking or deleting a token, revoking a worker) only ever name objects of their own.

Seeded (`derandomize`, no example database): the same cases on every run."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.test import override_settings
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.workers import bootstrap_token_create
from contracts_app.models import Route
from live_app.services.endpoints import endpoint_create
from releases_app.services import release_create
from tests.support.factories import example, make_token, make_user, make_version
from tests.support.gunicorn import NO_BROKER, LiveServer, serve
from tests.support.releases import ROUTE, activate, cosmetic_change, route_identity_change
from tests.support.workers import openai_run, register
from tests.workloads.samples import SPECPACT
from webhooks_app.services import deliveries_write, subscription_create
from workloads_app.services import UploadOptions, workload_upload

pytestmark = pytest.mark.integration

# ~65 operations × this keeps `make test`'s run near two minutes on two cores; a deeper
# search by hand: SPECPACT_SCHEMATHESIS_EXAMPLES=200 pytest tests/kernel/test_schema_contract.py
EXAMPLES_PER_OPERATION = int(os.environ.get("SPECPACT_SCHEMATHESIS_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
# The worker protocol: the claiming worker's token (an admin's is refused before the code).
_WORKER_OPERATIONS = re.compile(r"/runs/\{run_id\}/(start|progress|fail|result)$|/workers/heartbeat$")
# Calls that would end the run's own credentials if they named them: only the world's own
# throwaway token and worker, never a generated id.
_OWN_OBJECTS_ONLY = {
    ("POST", "/api/v1/tokens/{token_id}/revoke"),
    ("DELETE", "/api/v1/tokens/{token_id}/"),
    ("POST", "/api/v1/workers/{worker_id}/revoke"),
}


@dataclass
class World:
    """Path parameter values naming real objects, and each kind of caller's credentials."""

    params: dict[str, str]
    admin: str
    worker: str
    bootstrap: str
    throwaway_worker: str


def _seed(emulator: Any) -> World:
    """A route with an active version and a release awaiting review of a cosmetic change,
    another whose gate runs; a claimed run; a live endpoint on an engine emulator; a webhook
    with a delivery; a workload; tokens. Through the real services, committed."""
    proposer = make_user("st-proposer", "operator")
    approver = make_user("st-approver", "approver")
    admin = make_user("st-admin", None, is_superuser=True, is_staff=True)
    v1 = make_version(ROUTE, example("contract-summaries-ngram"))
    activate(v1, proposer, approver)
    route = Route.objects.get(slug=ROUTE)
    v2 = cosmetic_change(route)
    awaiting = release_create(route=route, candidate_version=v2.number, actor=proposer)
    route_identity_change(route)
    registration = register("st-worker")
    throwaway = register("st-throwaway")
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run((v1, v2), worker=registration.worker)
    run_start(run_id=run.pk, worker=registration.worker, attempt=1)
    engine = emulator("--served-model-name", v1.document["target"]["model"])
    endpoint_create(route=route, name="prod-eu", base_url=engine.base_url, engine="vllm", actor=proposer)
    with override_settings(WEBHOOK_ALLOW_LOOPBACK=True):
        hook = subscription_create(url="http://127.0.0.1:9/hook", events=["*"], actor=admin).subscription
    deliveries_write(event="release.approved", event_key="st-1", route=ROUTE, data={})
    workload = workload_upload(
        name="support-chat", raw=SPECPACT.encode(), options=UploadOptions(), actor=admin
    )
    _, bootstrap = bootstrap_token_create(note="schemathesis")
    throwaway_token = make_token(make_user("st-viewer", "viewer"), "viewer")
    return World(
        params={
            "slug": ROUTE,
            "number": str(v2.number),
            "release_id": str(awaiting.pk),
            "run_id": str(run.pk),
            "worker_id": str(registration.worker.pk),
            "token_id": str(throwaway_token.token.pk),
            "webhook_id": str(hook.pk),
            "delivery_id": str(hook.deliveries.first().pk),
            "name": "prod-eu",
            "key": workload.version.ref,
        },
        admin=make_token(admin, "admin").key,
        worker=registration.token,
        bootstrap=bootstrap,
        throwaway_worker=str(throwaway.worker.pk),
    )


@pytest.fixture
def world(transactional_db: None, emulator: Any) -> World:
    return _seed(emulator)


@pytest.fixture
def live(world: World) -> Iterator[LiveServer]:
    # Webhook URLs on loopback are the world's (a closed port); the endpoint is an emulator.
    # A broker answers (a Redis database of its own, which nothing consumes): a probe is then
    # queued and answered 202, as in production, not 503 for a missing broker.
    broker = os.environ.get("SPECPACT_TEST_REDIS_URL", "redis://127.0.0.1:6379/15").rsplit("/", 1)[0] + "/13"
    settings = {"WEBHOOK_ALLOW_LOOPBACK": "1", "ENDPOINT_PROBE_TIMEOUT_S": "3", "CELERY_BROKER_URL": broker}
    with serve(settings) as server:
        yield server


def _credentials(method: str, path: str, world: World) -> str:
    if path.endswith("/workers/register"):
        return world.bootstrap
    if _WORKER_OPERATIONS.search(path) and not (path.endswith("/result") and method == "GET"):
        return world.worker
    return world.admin


def _cases(operation: Any, world: World, headers: dict[str, str]) -> st.SearchStrategy[Any]:
    names = {p.name for p in operation.path_parameters}
    known = {name: world.params[name] for name in names if name in world.params}
    if (operation.method.upper(), operation.path) in _OWN_OBJECTS_ONLY:
        if "worker_id" in known:
            known["worker_id"] = world.throwaway_worker
        return st.one_of(
            operation.as_strategy(mode, path_parameters=known, headers=headers) for mode in GenerationMode
        )
    return st.one_of(
        *(operation.as_strategy(mode, path_parameters=known, headers=headers) for mode in GenerationMode),
        operation.as_strategy(GenerationMode.POSITIVE, headers=headers),
    )


def _destructive(operation: Any) -> bool:
    return operation.method.upper() == "DELETE" or operation.path.endswith("/revoke")


def _fuzz(operation: Any, world: World, base_url: str, proxy: dict[str, str]) -> None:
    token = _credentials(operation.method.upper(), operation.path, world)
    headers = {**proxy, "Authorization": f"Token {token}"}

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_cases(operation, world, headers))
    def run(case: Any) -> None:
        case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=30)

    run()


def test_the_live_server_keeps_its_schema(world: World, live: LiveServer) -> None:
    """Every operation is fuzzed (one failure doesn't hide the others); all failures listed."""
    proxy = {"X-Forwarded-Proto": "https"}
    schema = schemathesis.openapi.from_url(
        f"{live.base_url}/api/v1/schema/?format=json",
        headers={**proxy, "Authorization": f"Token {world.admin}"},
    )
    # Deletions and revocations last: what they remove, the others still find.
    operations = sorted((result.ok() for result in schema.get_all_operations()), key=_destructive)
    assert len(operations) >= 60, [op.label for op in operations]
    failures: dict[str, str] = {}
    for operation in operations:
        try:
            _fuzz(operation, world, live.base_url, proxy)
        except (Exception, BaseExceptionGroup) as exc:  # a failed check: keep going, report them all
            failures[operation.label] = str(exc)[:3000]
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(
        f"{label}:\n{why}" for label, why in failures.items()
    )
