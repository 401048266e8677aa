"""Raw samples dropped by age (issue 26, point 2): RAW_SAMPLES_RETENTION_DAYS, the prune
(service, beat task, `manage.py prune_raw_samples`), what it drops and what it keeps, and
what the readers of raw samples answer afterwards."""

from __future__ import annotations

import copy
import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from psycopg.conninfo import make_conninfo
from rest_framework.test import APIClient

from audit_app.checkpoints import verify_audit
from audit_app.models import AuditEvent
from benchmarks_app.models import Run, RunResult
from benchmarks_app.retention import without_samples
from benchmarks_app.services.retention import raw_samples_prune
from benchmarks_app.tasks import PRUNE_TASK
from specpact.celery import app as celery_app
from specpact.env import env_int
from tests.benchmarks.conftest import standalone_run
from tests.support.workers import register

pytestmark = pytest.mark.django_db

KEEP_30_DAYS = override_settings(RAW_SAMPLES_RETENTION_DAYS=30)


def _finished_run(operator: Any, outcome: dict[str, Any], *, age_days: int) -> Run:
    """A standalone run with its result uploaded by a worker, received `age_days` ago."""
    run = standalone_run(operator)
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {register(f'w{run.pk}').token}")
    assert worker.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    payload = {**copy.deepcopy(outcome), "run_id": run.pk, "attempt": 1}
    assert worker.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 201
    RunResult.objects.filter(run=run).update(received_at=timezone.now() - timedelta(days=age_days))
    return run


def _samples(payload: dict[str, Any]) -> int:
    return sum(
        len(level.get("requests", []))
        for arm in ("baseline", "candidate")
        for level in payload[arm]["levels"]
    )


def _prune_events() -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action="retention.samples_pruned").order_by("id"))


def test_raw_samples_are_kept_forever_by_default(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    run = _finished_run(operator, outcome_template, age_days=4000)
    before = RunResult.objects.get(run=run).payload
    assert settings.RAW_SAMPLES_RETENTION_DAYS == 0
    report = raw_samples_prune()
    assert report.cutoff is None and report.results == 0
    assert "kept forever" in report.words
    result = RunResult.objects.get(run=run)
    assert result.samples_pruned_at is None and result.payload == before
    assert not _prune_events()


@KEEP_30_DAYS
def test_the_prune_drops_old_samples_and_keeps_aggregates_digest_and_the_rest(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    old = _finished_run(operator, outcome_template, age_days=31)
    young = _finished_run(operator, outcome_template, age_days=29)
    old_before = RunResult.objects.get(run=old)
    young_before = RunResult.objects.get(run=young).payload

    report = raw_samples_prune()

    assert (report.results, report.run_ids, report.more) == (1, [old.pk], False)
    assert report.samples == _samples(old_before.payload) > 0
    pruned = RunResult.objects.get(run=old)
    assert pruned.samples_pruned_at is not None
    assert _samples(pruned.payload) == 0
    # Everything but the per-request records stays: the workload, each level's scalars.
    assert pruned.payload == without_samples(old_before.payload)[0]
    assert pruned.payload["candidate"]["workload"] == old_before.payload["candidate"]["workload"]
    assert [lv["concurrency"] for lv in pruned.payload["candidate"]["levels"]] == [1, 2]
    assert (pruned.aggregates, pruned.digest) == (old_before.aggregates, old_before.digest)
    kept = RunResult.objects.get(run=young)
    assert kept.samples_pruned_at is None and kept.payload == young_before
    # One event for the pass, with its counts; the chain and the gate evidence still verify.
    (event,) = _prune_events()
    assert event.actor_label == "retention"
    assert event.after["results"] == 1 and event.after["samples"] == report.samples
    assert event.after["runs"] == [old.pk] and event.after["retention_days"] == 30
    assert verify_audit()["valid"]


@KEEP_30_DAYS
def test_a_second_prune_finds_nothing_and_records_nothing(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    run = _finished_run(operator, outcome_template, age_days=90)
    assert raw_samples_prune().results == 1
    stamped = RunResult.objects.get(run=run).samples_pruned_at
    again = raw_samples_prune(now=timezone.now() + timedelta(days=1))
    assert again.results == 0 and again.run_ids == []
    assert RunResult.objects.get(run=run).samples_pruned_at == stamped
    assert len(_prune_events()) == 1


@KEEP_30_DAYS
def test_a_dry_run_says_what_it_would_prune_and_changes_nothing(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    run = _finished_run(operator, outcome_template, age_days=60)
    before = RunResult.objects.get(run=run).payload
    report = raw_samples_prune(dry_run=True)
    assert (report.results, report.run_ids) == (1, [run.pk])
    assert report.words.startswith("would prune the raw samples of 1 result ")
    result = RunResult.objects.get(run=run)
    assert result.samples_pruned_at is None and result.payload == before
    assert not _prune_events()


@KEEP_30_DAYS
def test_a_pass_takes_at_most_its_limit_and_the_next_goes_on(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    first = _finished_run(operator, outcome_template, age_days=200)
    second = _finished_run(operator, outcome_template, age_days=100)
    one = raw_samples_prune(limit=1)
    assert (one.run_ids, one.more) == ([first.pk], True)  # the oldest first
    two = raw_samples_prune(limit=1)
    assert (two.run_ids, two.more) == ([second.pk], False)
    assert [e.after["runs"] for e in _prune_events()] == [[first.pk], [second.pk]]


def test_the_retention_setting_refuses_what_is_not_a_number_of_days(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("-1", "thirty", "1.5"):
        monkeypatch.setenv("RAW_SAMPLES_RETENTION_DAYS", bad)
        with pytest.raises(ImproperlyConfigured, match="RAW_SAMPLES_RETENTION_DAYS"):
            env_int("RAW_SAMPLES_RETENTION_DAYS", 0, minimum=0)
    monkeypatch.setenv("RAW_SAMPLES_RETENTION_DAYS", "90")
    assert env_int("RAW_SAMPLES_RETENTION_DAYS", 0, minimum=0) == 90
    # Set in code (an override), the prune holds it to the same rule.
    with (
        override_settings(RAW_SAMPLES_RETENTION_DAYS=-5),
        pytest.raises(ImproperlyConfigured, match="at least 0"),
    ):
        raw_samples_prune()


def test_a_bad_retention_setting_stops_start_up() -> None:
    """The settings module reads it with the rule: the process refuses to start."""
    env = {**os.environ, "RAW_SAMPLES_RETENTION_DAYS": "-7", "DJANGO_SETTINGS_MODULE": "specpact.settings"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "RAW_SAMPLES_RETENTION_DAYS=-7 must be at least 0" in done.stderr


def test_beat_runs_the_prune() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["benchmarks-prune-raw-samples"]
    assert entry["task"] == PRUNE_TASK
    assert entry["schedule"] == float(settings.RAW_SAMPLES_PRUNE_INTERVAL_S)
    assert PRUNE_TASK in celery_app.tasks


@KEEP_30_DAYS
def test_the_command_prunes_or_only_says_what_it_would(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    run = _finished_run(operator, outcome_template, age_days=45)
    out = io.StringIO()
    call_command("prune_raw_samples", "--dry-run", stdout=out)
    assert "would prune the raw samples of 1 result " in out.getvalue()
    assert RunResult.objects.get(run=run).samples_pruned_at is None
    out = io.StringIO()
    call_command("prune_raw_samples", stdout=out)
    assert out.getvalue().startswith("pruned the raw samples of 1 result ")
    assert RunResult.objects.get(run=run).samples_pruned_at is not None


@KEEP_30_DAYS
def test_readers_of_raw_samples_answer_410_with_when_and_why(
    versions: Any, operator: Any, viewer: Any, outcome_template: dict[str, Any]
) -> None:
    run = _finished_run(operator, outcome_template, age_days=31)
    client = APIClient()
    client.force_login(viewer)
    assert client.get(f"/api/v1/runs/{run.pk}/").json()["samples_pruned_at"] is None
    assert client.get(f"/api/v1/runs/{run.pk}/result").status_code == 200
    raw_samples_prune()
    day = f"{RunResult.objects.get(run=run).samples_pruned_at:%Y-%m-%d}"
    for path in (f"/api/v1/runs/{run.pk}/result", f"/api/v1/runs/{run.pk}/result.csv"):
        response = client.get(path)
        assert response.status_code == 410, path
        assert response["Content-Type"].startswith("application/problem+json")
        problem = response.json()
        assert problem["code"] == "samples_pruned"
        assert f"pruned on {day} by the retention setting (RAW_SAMPLES_RETENTION_DAYS)" in problem["detail"]
        assert problem["samples_pruned_at"].startswith(day)
    detail = client.get(f"/api/v1/runs/{run.pk}/").json()
    assert detail["samples_pruned_at"].startswith(day) and detail["has_result"] is True


def test_without_samples_keeps_what_is_not_a_harness_result() -> None:
    payload = {
        "attempt": 1,
        "baseline": {
            "levels": [{"concurrency": 1, "requests": [{"e2e_ms": 1.0}] * 3, "requests_per_s": 2.0}]
        },
        "candidate": {"levels": [{"concurrency": 1}], "workload": {"dataset": "builtin:extraction"}},
        "order": ["baseline", "candidate"],
    }
    kept, removed = without_samples(payload)
    assert removed == 3
    assert kept == {
        "attempt": 1,
        "baseline": {"levels": [{"concurrency": 1, "requests_per_s": 2.0}]},
        "candidate": {"levels": [{"concurrency": 1}], "workload": {"dataset": "builtin:extraction"}},
        "order": ["baseline", "candidate"],
    }
    assert payload["baseline"]["levels"][0]["requests"]  # the input is left as it was
    assert without_samples(None) == (None, 0)


@KEEP_30_DAYS
@pytest.mark.django_db(transaction=True)
def test_a_result_another_pass_holds_is_skipped_not_pruned_twice(
    versions: Any, operator: Any, outcome_template: dict[str, Any]
) -> None:
    """Overlapping ticks: a row locked by another pass (another connection) is left to it."""
    held = _finished_run(operator, outcome_template, age_days=90)
    free = _finished_run(operator, outcome_template, age_days=60)
    s = connection.settings_dict
    conninfo = make_conninfo(
        dbname=s["NAME"],
        user=s["USER"] or "",
        password=s["PASSWORD"] or "",
        host=s["HOST"] or "",
        port=s["PORT"] or "",
    )
    with psycopg.connect(conninfo) as other, connection.cursor() as cursor:
        other.execute("SELECT id FROM benchmarks_app_runresult WHERE run_id = %s FOR UPDATE", [held.pk])
        # A pass that waited for the lock instead of skipping it fails here, not hangs.
        cursor.execute("SET lock_timeout = '5s'")
        try:
            assert raw_samples_prune().run_ids == [free.pk]
        finally:
            cursor.execute("RESET lock_timeout")
    assert raw_samples_prune().run_ids == [held.pk]  # released: the next pass takes it
    assert [e.after["runs"] for e in _prune_events()] == [[free.pk], [held.pk]]
