"""Beat's periodic checkpoint and full walk of the audit chain (CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

import logging

from celery import shared_task

from audit_app.checkpoints import checkpoint_create, describe, verify_audit
from kernel.errors import DomainError

log = logging.getLogger("specpact.audit")

CHECKPOINT_TASK = "audit_app.checkpoint"
VERIFY_FULL_TASK = "audit_app.verify_full"


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


@shared_task(name=VERIFY_FULL_TASK, ignore_result=True)
def verify_full_task() -> bool:
    """Walk the whole chain and record it on the mark (audit_app/marks.py): the audit page
    hashes only newer events, so this is what catches an edit before the mark. A broken
    chain is logged every tick and shown on the page until a full walk holds again."""
    status = verify_audit()
    if not status["valid"]:
        log.error("audit: the chain does not verify (%s): %s", status["problem"], describe(status))
    return status["valid"]
