"""Writes: keyword-only functions in a transaction that raise DomainError.

The public entry points other apps use are re-exported here."""

from benchmarks_app.services.runs import (
    release_runs_cancel,
    release_runs_create,
    run_cancel,
    run_create,
    variant_run_create,
)

__all__ = ["release_runs_cancel", "release_runs_create", "run_cancel", "run_create", "variant_run_create"]
