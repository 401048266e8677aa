"""The data generator at its small scale, against the test database: the counts it
promises, documents and results the app itself accepts, decisions that satisfy four eyes
and overrides, a valid audit chain, and the database's triggers still on afterwards."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from psycopg.conninfo import make_conninfo

from audit_app.chain import verify_chain
from audit_app.models import AuditEvent
from audit_app.services import audit_record
from benchmarks.datagen.generate import Report, generate
from benchmarks.datagen.scale import SMALL
from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.models import OutboxMessage, Run, RunResult
from benchmarks_app.result_digest import result_digest as _digest
from benchmarks_app.results_check import check_outcome
from contracts_app.document import document_digest, validate_document
from contracts_app.models import ContractVersion, Route
from contracts_app.services import route_create
from live_app.models import AcceptanceSample, Endpoint, Probe
from releases_app.choices import OPEN_STATES
from releases_app.models import Decision, Release
from worker.spec import RunSpec

pytestmark = pytest.mark.django_db(transaction=True)


def _conninfo() -> str:
    s = connection.settings_dict
    return make_conninfo(
        dbname=s["NAME"],
        user=s["USER"] or "",
        password=s["PASSWORD"] or "",
        host=s["HOST"] or "",
        port=s["PORT"] or "",
    )


def test_the_small_scale_fills_the_database_with_what_the_app_accepts() -> None:
    """One generation (about 20 s), several properties of what it wrote."""
    # In this process (jobs=1); the generator's own connections commit what it writes.
    report = generate(_conninfo(), SMALL, seed=3, jobs=1, validate_every=10, log=lambda _: None)
    _counts_of_its_scale(report)
    _documents_validate_and_carry_their_digest()
    _results_pass_the_upload_check_and_store_their_aggregates()
    _releases_keep_the_rules_of_the_release_workflow()
    _triggers_are_still_on(report)
    _a_year_of_live_probes_names_what_ran_then(report)
    _audit_chain_is_valid_and_the_app_can_go_on()


def _counts_of_its_scale(report: Report) -> None:
    assert Route.objects.count() == SMALL.routes
    assert ContractVersion.objects.count() == SMALL.versions
    assert Release.objects.count() == SMALL.releases
    assert Run.objects.count() == OutboxMessage.objects.count() == SMALL.runs
    assert RunResult.objects.count() == SMALL.results
    assert AuditEvent.objects.count() == SMALL.audit_events
    # 2 arms x levels x requests per level: 128 or 144 per result.
    assert 128 * SMALL.results <= report.samples <= 144 * SMALL.results
    assert report.validated >= SMALL.results // 20


def _documents_validate_and_carry_their_digest() -> None:
    for version in ContractVersion.objects.order_by("id")[::17]:
        contract = validate_document(version.document)
        assert document_digest(contract) == version.digest
        assert contract.route == version.route.slug


def _results_pass_the_upload_check_and_store_their_aggregates() -> None:
    ids = list(RunResult.objects.values_list("run_id", flat=True))
    for run_id in random.Random(1).sample(ids, 12):
        result = RunResult.objects.select_related("run").get(run_id=run_id)
        RunSpec.model_validate(result.run.spec)
        check_outcome(run=result.run, attempt=result.attempt, payload=result.payload)
        assert result.digest == _digest(result.payload)
        for arm in ("baseline", "candidate"):
            assert result.aggregates[arm] == aggregate_result(result.payload[arm])
        assert result.run.state == "succeeded" and result.run.worker_id == result.worker_id


def _releases_keep_the_rules_of_the_release_workflow() -> None:
    for route in Route.objects.all():
        releases = Release.objects.filter(route=route)
        assert releases.filter(state__in=OPEN_STATES).count() <= 1
        active = releases.filter(state="active").first()
        if active is not None:
            assert route.active_version_id == active.candidate_version_id
    for decision in Decision.objects.filter(kind="approve").select_related("release"):
        assert decision.decided_by_id != decision.release.proposed_by_id
        assert decision.override == (decision.release.gate_verdict == "fail")
    gated = Release.objects.exclude(gate_verdict=None)
    assert gated.exists() and all(r.gate_result["verdict"] == r.gate_verdict for r in gated)
    assert {"active", "superseded"} <= set(Release.objects.values_list("state", flat=True))


def _audit_chain_is_valid_and_the_app_can_go_on() -> None:
    assert verify_chain() == {"valid": True, "events": SMALL.audit_events, "first_broken": None}
    # Sequences moved on: the app's own writes continue the data and the chain.
    route_create(slug="after-datagen", actor=None)
    assert verify_chain()["valid"] is True
    audit_record(actor=None, action="test.after", obj_type="thing", obj_id=1)
    assert verify_chain()["events"] == SMALL.audit_events + 2


def _a_year_of_live_probes_names_what_ran_then(report: Report) -> None:
    endpoints = Endpoint.objects.select_related("last_probe")
    assert endpoints.count() == report.counts["live_app.Endpoint"] == 2 * SMALL.live_routes
    assert Probe.objects.count() == report.counts["live_app.Probe"]
    assert AcceptanceSample.objects.count() == report.counts["live_app.AcceptanceSample"] > 0
    for endpoint in endpoints:
        probes = Probe.objects.filter(endpoint=endpoint)
        newest = probes.order_by("-probed_at", "-id").first()
        assert newest is not None and endpoint.last_probe == newest and endpoint.state == newest.state
        oldest = probes.order_by("probed_at").first()
        assert oldest is not None
        span = newest.probed_at - oldest.probed_at
        assert span <= timedelta(days=SMALL.live_days)
        # Hourly: a year is at most 8,760 probes, and the route's history decides the versions.
        assert probes.count() <= SMALL.live_days * 24
        assert not probes.exclude(version__route=endpoint.route_id).exists()
    # A probe names the version its route had activated by then, never a later one.
    for probe in Probe.objects.select_related("version").order_by("?")[:50]:
        assert probe.version is not None and probe.version.created_at <= probe.probed_at
    drifted = Probe.objects.filter(state="drifted")
    assert drifted.exists() and all(p.differences and "differs" in p.coverage for p in drifted[:20])
    assert not Probe.objects.filter(state="conforms").exclude(differences=[]).exists()


def _triggers_are_still_on(report: Report) -> None:
    assert len(report.triggers) == 3
    event = AuditEvent.objects.order_by("id").first()
    version = ContractVersion.objects.order_by("id").first()
    assert event is not None and version is not None
    statements: list[tuple[str, list[Any]]] = [
        (f"UPDATE {AuditEvent._meta.db_table} SET reason = 'x' WHERE id = %s", [event.id]),  # noqa: S608
        (f"UPDATE {ContractVersion._meta.db_table} SET digest = 'x' WHERE id = %s", [version.id]),  # noqa: S608
    ]
    for statement, params in statements:
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, params)
