"""The prune on SQLite, the embedded default (`make demo`): the migration applies, and a
result's raw samples are taken out with its aggregates and digest kept and the pass
audited, the same as on PostgreSQL. In a process of its own (the suite's database is
PostgreSQL): `migrate` on a new SQLite file, then the service, in one `manage.py shell` (one
Django start, not two)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sqlite_shell import sqlite_shell

pytestmark = pytest.mark.integration

SCRIPT = """
import json
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from datetime import timedelta
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from audit_app.models import AuditEvent
from benchmarks_app.models import Run, RunResult
from benchmarks_app.services.retention import raw_samples_prune
from tests.support.factories import example, make_version
from tests.support.workers import register

v1 = make_version("contract-summaries", example())
worker = register("sqlite-box").worker
run = Run.objects.create(route=v1.route, lane="chat", baseline_version=v1, candidate_version=v1,
                         engine_kind="openai", queue="pool.any", state="succeeded", worker=worker)
arm = {"workload": {"dataset": "builtin:chat"},
       "levels": [{"concurrency": 1, "requests_per_s": 2.0, "requests": [{"e2e_ms": 1.0}] * 5}]}
RunResult.objects.create(run=run, attempt=1, worker=worker, payload={"baseline": arm, "candidate": arm},
                         digest="ab" * 32, aggregates={"baseline": [{"requests": 5}], "candidate": []})
RunResult.objects.update(received_at=timezone.now() - timedelta(days=40))
with override_settings(RAW_SAMPLES_RETENTION_DAYS=30):
    report = raw_samples_prune()
    again = raw_samples_prune()
r = RunResult.objects.get(run=run)
print(json.dumps({
    "vendor": connection.vendor,
    "results": report.results, "samples": report.samples, "again": again.results,
    "pruned": r.samples_pruned_at is not None, "payload": r.payload,
    "digest": r.digest, "aggregates": r.aggregates,
    "events": list(
        AuditEvent.objects.filter(action="retention.samples_pruned").values_list("after", flat=True)
    ),
}))
"""


def test_the_prune_works_on_sqlite(tmp_path: Path) -> None:
    out = sqlite_shell(tmp_path, SCRIPT)
    assert out["vendor"] == "sqlite"
    assert (out["results"], out["samples"], out["again"], out["pruned"]) == (1, 10, 0, True)
    kept = {"workload": {"dataset": "builtin:chat"}, "levels": [{"concurrency": 1, "requests_per_s": 2.0}]}
    assert out["payload"] == {"baseline": kept, "candidate": kept}
    assert out["digest"] == "ab" * 32
    assert out["aggregates"] == {"baseline": [{"requests": 5}], "candidate": []}
    (event,) = out["events"]
    assert event["results"] == 1 and event["samples"] == 10 and event["retention_days"] == 30
