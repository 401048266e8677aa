"""`manage.py sweep_runs`: one pass of the lost-run sweep (beat runs it periodically)."""

from __future__ import annotations

from typing import Any

from benchmarks_app.services.sweep import runs_sweep
from kernel.commands import ContextCommand


class Command(ContextCommand):
    help = "Fail or requeue runs whose worker went silent, and time out runs past their limit."

    def handle(self, *args: Any, **options: Any) -> None:
        report = runs_sweep()
        self.stdout.write(
            f"requeued {report.requeued or 'none'}, failed {report.failed or 'none'}, "
            f"timed out {report.timed_out or 'none'}"
        )
