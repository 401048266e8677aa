"""`manage.py prune_raw_samples [--dry-run] [--limit N]`: one pass of the raw-samples
prune (beat runs it every RAW_SAMPLES_PRUNE_INTERVAL_S; benchmarks_app/services/retention.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from benchmarks_app.services.retention import PRUNE_LIMIT, raw_samples_prune
from kernel.commands import ContextCommand


class Command(ContextCommand):
    help = (
        "Take the per-request samples out of results older than RAW_SAMPLES_RETENTION_DAYS "
        "(aggregates, digests, verdicts and the audit trail are kept)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="say what would be pruned, change nothing")
        parser.add_argument("--limit", type=int, default=PRUNE_LIMIT, help="results in this pass at most")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["limit"] < 1:
            raise CommandError("--limit must be at least 1", returncode=2)
        report = raw_samples_prune(dry_run=options["dry_run"], limit=options["limit"])
        self.stdout.write(report.words)
