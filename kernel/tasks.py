"""Project-wide housekeeping on beat (CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

from celery import shared_task

PURGE_IDEMPOTENCY_TASK = "specpact.purge_idempotency_keys"


@shared_task(name=PURGE_IDEMPOTENCY_TASK, ignore_result=True)
def purge_idempotency_keys() -> int:
    from kernel.api.idempotency import purge_expired

    return purge_expired()
