"""Beat runs the relay (CELERY_BEAT_SCHEDULE in settings)."""

from __future__ import annotations

from celery import shared_task

RELAY_TASK = "webhooks_app.relay_deliveries"


@shared_task(name=RELAY_TASK, ignore_result=True)
def relay_deliveries() -> int:
    from webhooks_app.relay import relay_once

    return relay_once()
