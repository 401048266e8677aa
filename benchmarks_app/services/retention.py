"""The raw-samples prune: results received more than RAW_SAMPLES_RETENTION_DAYS ago lose
their per-request samples (`benchmarks_app.retention.without_samples`); their aggregates,
digest, the verdicts and the audit trail stay forever. Beat runs it every
RAW_SAMPLES_PRUNE_INTERVAL_S (`benchmarks_app.prune_raw_samples`), or `manage.py
prune_raw_samples [--dry-run]`.

In place, row by row, rather than a table partitioned by month with whole partitions
dropped: benchmarks/RESULTS.md ("Raw samples dropped by age") has the figures and why.

One pass is one transaction with one audit event naming what it pruned (results, samples,
the run ids, the cutoff), so the trail never says more or less than was done; a pass takes
at most `limit` results (a backlog, e.g. when retention is first switched on, is worked
off over several ticks). Rows are claimed with SKIP LOCKED, so overlapping ticks never
prune one result twice; a result already pruned is out of the scan (idempotent). Each
payload is read and rewritten one at a time: memory holds one result, whatever its size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from audit_app.actors import Actor
from audit_app.services import audit_record
from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.models import RunResult
from benchmarks_app.retention import SETTING, without_samples
from benchmarks_app.selectors import ARMS
from kernel.settings_values import at_least

PRUNE_LIMIT = 2_000


@dataclass
class PruneReport:
    retention_days: int
    cutoff: datetime | None
    dry_run: bool
    results: int = 0
    samples: int = 0
    run_ids: list[int] = field(default_factory=list)
    # More results are due than this pass took (`limit`): the next pass goes on.
    more: bool = False

    @property
    def words(self) -> str:
        if self.cutoff is None:
            return f"{SETTING} is 0: raw samples are kept forever, nothing pruned"
        verb = "would prune" if self.dry_run else "pruned"
        counted = "" if self.dry_run else f" ({self.samples:,} request samples)"
        more = "; more are due (the next pass goes on)" if self.more else ""
        noun = "result" if self.results == 1 else "results"
        return (
            f"{verb} the raw samples of {self.results:,} {noun} received before "
            f"{self.cutoff:%Y-%m-%d %H:%M} UTC{counted}{more}"
        )


def retention_days() -> int:
    """The setting, held to its rule (0: keep forever) wherever it was set."""
    return at_least(SETTING, int(settings.RAW_SAMPLES_RETENTION_DAYS), 0)


def raw_samples_prune(
    *, dry_run: bool = False, now: datetime | None = None, limit: int = PRUNE_LIMIT
) -> PruneReport:
    days = retention_days()
    if days == 0:
        return PruneReport(retention_days=0, cutoff=None, dry_run=dry_run)
    now = now or timezone.now()
    report = PruneReport(retention_days=days, cutoff=now - timedelta(days=days), dry_run=dry_run)
    due = RunResult.objects.filter(samples_pruned_at__isnull=True, received_at__lt=report.cutoff)
    with transaction.atomic():
        # A dry run locks nothing: a prune beside it must not skip the rows it only counts.
        rows = due if dry_run else due.select_for_update(skip_locked=True)
        claimed = list(rows.order_by("received_at", "id").values_list("id", "run_id")[: limit + 1])
        report.more = len(claimed) > limit
        claimed = claimed[:limit]
        report.results, report.run_ids = len(claimed), sorted(run_id for _, run_id in claimed)
        if dry_run or not claimed:
            return report
        for result_id, _ in claimed:
            row = RunResult.objects.filter(pk=result_id).values_list("payload", "aggregates").get()
            payload, aggregates = row
            if not aggregates:  # stored before aggregates were: the last chance to take them
                aggregates = {arm: aggregate_result((payload or {}).get(arm) or {}) for arm in ARMS}
            kept, removed = without_samples(payload)
            RunResult.objects.filter(pk=result_id).update(
                payload=kept, aggregates=aggregates, samples_pruned_at=now
            )
            report.samples += removed
        audit_record(
            actor=Actor.system("retention"),
            action="retention.samples_pruned",
            obj_type="retention",
            obj_id="raw_samples",
            after={
                "results": report.results,
                "samples": report.samples,
                "runs": report.run_ids,
                "cutoff": report.cutoff.isoformat() if report.cutoff else None,
                "retention_days": days,
            },
            reason=f"{SETTING}={days}: raw samples older than {days} days pruned; aggregates kept",
        )
    return report
