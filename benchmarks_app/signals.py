"""What benchmarks_app tells the rest of the project, without knowing who listens.

`run_finished` is sent once the transaction that ended a run (succeeded, failed, timed
out, cancelled) has committed; receivers get `run_id`, `release_id` (None for a
standalone run) and `advice_id` (the advice run it measures a batch of, or None).
releases_app listens to conclude a release whose runs have all ended; advice_app to
record an advice's batch.
A receiver runs in no transaction of ours and must not assume the run is still the
newest state: it re-reads what it needs."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

from benchmarks_app.models import Run

run_finished = Signal()


def announce_run_finished(*, run: Run) -> None:
    """Call in the transaction that ended `run`: the signal goes out after its commit."""
    run_id, release_id, advice_id = run.pk, run.release_id, run.advice_id
    transaction.on_commit(
        lambda: run_finished.send(sender=Run, run_id=run_id, release_id=release_id, advice_id=advice_id)
    )
