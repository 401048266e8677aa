"""Beat's periodic checkpoint of the audit chain (CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

import logging

from celery import shared_task

from audit_app.checkpoints import checkpoint_create, verify_audit
from specpact.errors import DomainError

log = logging.getLogger("specpact.audit")

CHECKPOINT_TASK = "audit_app.checkpoint"


@shared_task(name=CHECKPOINT_TASK, ignore_result=True)
def checkpoint_task() -> int | None:
    """The new checkpoint's id, or None. Without a key or over a broken chain it signs
    nothing and says why in the log, every tick, until someone acts on it."""
    try:
        row, created = checkpoint_create()
    except DomainError as exc:
        log.error("audit: no checkpoint signed: %s", exc.detail)
        if exc.code == "chain_broken":
            # The refusal rolled back checkpoint_create's transaction, and with it what the
            # chain_failed signal's receivers wrote (webhook deliveries): verify once more
            # outside it so that they are told, and keep what they write.
            verify_audit()
        return None
    return row.pk if row is not None and created else None
