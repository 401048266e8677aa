"""Shared fixtures: the named actors of permission tests and API clients for them.

Actors: proposer (operator), operator, approver, second_approver, viewer, admin
(superuser), pipeline (an operator token scoped to the `contract-summaries` route) and
outsider (an approver token scoped to another route, `elsewhere`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks_app.services.workers import bootstrap_token_create
from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create, release_gate_complete
from tests.support.actors import PIPELINE_ROUTE, Caller
from tests.support.factories import example, make_token, make_user, make_version, variant
from tests.support.gunicorn import gunicorn_server as _gunicorn_server
from tests.support.launcher import Emulators, emulator_factory
from tests.support.processes import Agent, ControlPlaneWorker, RedisServer
from tests.support.releases import ROUTE, activate, cosmetic_change, route_identity_change

# A factory of engine emulators (tests/support/engine_emulator): emulator("--shape", "tgi", …);
# all of a module's stop after it.
emulator = emulator_factory("module")
# A real gunicorn serving this run's test database (tests/support/gunicorn.py), one per module.
gunicorn_server = _gunicorn_server


@pytest.fixture(scope="session")
def django_db_modify_db_settings_tox_suffix() -> None:
    """Test databases carry a short hash of this checkout's path (before xdist's `_gw0`),
    so two checkouts of the project on one machine never drop each other's test database
    mid-run. (Replaces pytest-django's tox suffix, which this project does not use.)"""
    from django.conf import settings

    suffix = hashlib.sha256(str(Path(__file__).resolve().parent.parent).encode()).hexdigest()[:8]
    for db in settings.DATABASES.values():
        test = db.setdefault("TEST", {})
        test["NAME"] = f"{test.get('NAME') or 'test_' + db['NAME']}_{suffix}"


@pytest.fixture(autouse=True, scope="session")
def _flush_past_audit_trigger() -> Iterator[None]:
    """The audit table refuses TRUNCATE, which is how Django empties the database after a
    `transaction=True` test. Only that flush runs as a replica (`SET LOCAL
    session_replication_role`, superuser-only, ends with the flush's own transaction),
    which skips ordinary triggers; every test still runs with the trigger on."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.execute_sql_flush

    def flush(self: DatabaseOperations, sql_list: list[str]) -> None:
        original(self, ["SET LOCAL session_replication_role = replica", *sql_list])

    DatabaseOperations.execute_sql_flush = flush  # type: ignore[method-assign]
    yield
    DatabaseOperations.execute_sql_flush = original  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counts, login failures and built figures live in Django's caches
    (in-process here): each test starts with none, whatever the tests before it did."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()
    yield


# The suite's engines are fakes on loopback (emulators, llama-server, closed ports), and
# runs' `openai` targets are held to ENDPOINT_ALLOWED_NETWORKS like live endpoints, whose
# shipped default leaves loopback out: the suite allows it, tests of the default set it back.
LOOPBACK_AND_PRIVATE = "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"


@pytest.fixture(autouse=True)
def _engines_on_loopback(settings: Any) -> None:
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE


@pytest.fixture(autouse=True)
def _conclusions_inline(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's end sends its release's conclusion to the control-plane worker after commit
    (`releases_app.tasks.release_conclude_enqueue`). The suite runs no such worker, so the
    task itself runs inline there, through Celery's `apply()` (its retries too), and a
    test sees the verdict once the upload's on-commit callbacks have run. A test that
    starts a real worker (`control_plane`) or asks for `sends_through_the_broker` sends it
    through the broker instead."""
    if {"control_plane", "sends_through_the_broker"} & set(request.fixturenames):
        return
    from releases_app import tasks

    def inline(*, release_id: int) -> None:
        tasks.release_conclude_task.apply(args=[release_id])

    monkeypatch.setattr(tasks, "release_conclude_enqueue", inline)


@pytest.fixture(autouse=True)
def _advice_steps_inline(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """An advice run's benchmark run ending sends its step (record the batch, dispatch the
    next) to the control-plane worker after commit (`advice_app.tasks`); as for
    conclusions, the suite runs it inline unless a real worker is there."""
    if {"control_plane", "sends_through_the_broker"} & set(request.fixturenames):
        return
    from advice_app import tasks

    def inline(*, run_id: int) -> None:
        tasks.advice_run_finished_task.apply(args=[run_id])

    monkeypatch.setattr(tasks, "advice_run_finished_enqueue", inline)


@pytest.fixture(autouse=True)
def _probes_inline(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe asked for through the API or a page is sent to the control-plane worker
    (`live_app.services.probe_requests.publish`); the suite runs no such worker, so the
    task runs inline, through Celery's `apply()`, and the API's short wait finds it done.
    Tests with a real worker (`control_plane`) or `sends_through_the_broker` send it."""
    if {"control_plane", "sends_through_the_broker"} & set(request.fixturenames):
        return
    from live_app import tasks
    from live_app.services import probe_requests

    def inline(request_id: int) -> None:
        tasks.probe_request_task.apply(args=[request_id])

    monkeypatch.setattr(probe_requests, "publish", inline)


@pytest.fixture
def sends_through_the_broker() -> None:
    """The test sends releases' conclusions, advice steps and requested probes as production
    does (see `_conclusions_inline`, `_advice_steps_inline`, `_probes_inline`)."""


@pytest.fixture
def proposer(db: None) -> Any:
    return make_user("pat-proposer", "operator")


@pytest.fixture
def operator(db: None) -> Any:
    return make_user("olga-operator", "operator")


@pytest.fixture
def approver(db: None) -> Any:
    return make_user("alice-approver", "approver")


@pytest.fixture
def second_approver(db: None) -> Any:
    return make_user("bob-approver", "approver")


@pytest.fixture
def viewer(db: None) -> Any:
    return make_user("vera-viewer", "viewer")


@pytest.fixture
def admin(db: None) -> Any:
    return make_user("ada-admin", None, is_superuser=True, is_staff=True)


@pytest.fixture
def pipeline(db: None) -> Caller:
    user = make_user("ci-pipeline", "operator")
    issued = make_token(user, "operator", [PIPELINE_ROUTE])
    return Caller("pipeline", user=user, key=issued.key, token=issued.token)


@pytest.fixture
def outsider(db: None) -> Caller:
    user = make_user("oscar-outsider", "approver")
    issued = make_token(user, "approver", ["elsewhere"])
    return Caller("outsider", user=user, key=issued.key, token=issued.token)


# Routes and versions in known states, built through the real services, for the release,
# worker and hardening tests.


@pytest.fixture
def versions(db: None) -> tuple[Any, Any]:
    """(baseline, candidate) of route `contract-summaries`: n-gram with 4 vs. 6 tokens."""
    doc = example("contract-summaries-ngram")
    baseline = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 4}))
    candidate = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 6}))
    return baseline, candidate


@pytest.fixture
def route_v1(proposer: Any, approver: Any) -> Route:
    """`contract-summaries` with version 1 active through release 1."""
    v1 = make_version(ROUTE, example("contract-summaries-ngram"))
    activate(v1, proposer, approver)
    return Route.objects.get(slug=ROUTE)


@pytest.fixture
def awaiting(route_v1: Route, proposer: Any) -> Release:
    """A release of a cosmetic change, awaiting review (no benchmark needed)."""
    v2 = cosmetic_change(route_v1)
    return release_create(route=route_v1, candidate_version=v2.number, actor=proposer)


@pytest.fixture
def failed_gate(route_v1: Route, proposer: Any) -> Release:
    """A route-identity change whose gate failed: reviewable, but only with an override."""
    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    return release_gate_complete(release=release, verdict="fail", gate_result={"verdict": "fail"})


# Real processes (integration tests of the worker protocol and of workloads): a private
# redis-server the test may stop, two vLLM-shaped engine emulators as given endpoints,
# and `specpact-worker run` agents.


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def protocol(settings: Any, redis_server: RedisServer) -> RedisServer:
    """The control plane and `specpact-worker run` agents share the private Redis, with a
    one-second heartbeat."""
    settings.CELERY_BROKER_URL = redis_server.url
    settings.WORKER_BROKER_URL = redis_server.url
    settings.WORKER_HEARTBEAT_S = 1
    return redis_server


@pytest.fixture
def endpoints() -> Iterator[dict[str, Any]]:
    """Two vLLM-shaped emulators: the baseline streams one token per chunk, the candidate
    three (as speculation does), both at 30 ms per chunk, so a run takes a few seconds.
    Said to be vLLM, the harness asks them for per-chunk token ids, as it asks vLLM."""
    with Emulators() as emulators:
        base = emulators.start("--pattern", "1", "--step-ms", "30")
        cand = emulators.start("--pattern", "3", "--step-ms", "30")
        yield {
            "baseline": {"base_url": base.base_url, "model": "test-model", "server": "vllm"},
            "candidate": {"base_url": cand.base_url, "model": "test-model", "server": "vllm"},
        }


@pytest.fixture
def agents(tmp_path: Path) -> Iterator[Callable[..., Agent]]:
    started: list[Agent] = []

    def start(url: str, name: str = "w1") -> Agent:
        _, token = bootstrap_token_create(note=f"agent {name}")
        agent = Agent(tmp_path / name, url, token, name)
        started.append(agent)
        return agent

    yield start
    for agent in started:
        agent.stop()


@pytest.fixture
def control_plane(settings: Any, protocol: RedisServer, tmp_path: Path) -> Iterator[ControlPlaneWorker]:
    """The control plane's own Celery worker on the private Redis, started: a release's
    conclusion travels through the broker to it (not inline: `_conclusions_inline`). It
    reads the test's endpoint settings from its environment, as production does."""
    worker = ControlPlaneWorker(
        tmp_path / "control-plane",
        protocol.url,
        env={
            "ENDPOINT_ALLOWED_NETWORKS": str(settings.ENDPOINT_ALLOWED_NETWORKS),
            "ENDPOINT_PROBE_TIMEOUT_S": str(settings.ENDPOINT_PROBE_TIMEOUT_S),
        },
    )
    try:
        worker.wait_ready()
        yield worker
    finally:
        worker.stop()
