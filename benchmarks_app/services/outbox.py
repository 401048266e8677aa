"""The transactional outbox: a run's dispatch is a row written with the run, published to
the broker after commit by the relay, which retries until the broker takes it.

Delivery is at least once (the broker may accept a message whose `published_at` then
fails to commit); the worker's conditional claim (`POST runs/{id}/start`) turns that into
exactly one execution per attempt.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import Celery
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from benchmarks_app.broker import publisher_app
from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run
from worker.spec import RUN_TASK_NAME

log = logging.getLogger(__name__)

# The relay's own pass retries on its next tick, so one publish waits little for a broker
# that is down: the web request that kicks the relay after commit must not hang.
_PUBLISH_RETRY_POLICY: dict[str, float] = {
    "max_retries": 1,
    "interval_start": 0.2,
    "interval_step": 0.5,
    "interval_max": 1.0,
}
# kombu's own connection retries (retry=False) take seconds: one try is max_retries 0.
_ONE_TRY: dict[str, float] = {"max_retries": 0, "interval_start": 0}


def outbox_enqueue(*, run: Run) -> OutboxMessage:
    """Write the dispatch of the run's current attempt; publish after commit.
    Call inside the transaction that created or requeued the run."""
    limits = run.spec["limits"]
    message = OutboxMessage.objects.create(
        run=run,
        attempt=run.attempt,
        task_name=RUN_TASK_NAME,
        queue=run.queue,
        task_id=f"run-{run.pk}-attempt-{run.attempt}",
        payload=run.spec,
        soft_time_limit_s=limits["soft_time_limit_s"],
        time_limit_s=limits["time_limit_s"],
    )
    transaction.on_commit(lambda: relay_kick(message_ids=[message.pk]))
    return message


def relay_kick(*, message_ids: list[int]) -> None:
    """Publish just-committed messages now rather than at the next relay tick. Never
    raises: a failure leaves them pending for the relay."""
    try:
        # One try: with the broker down, the request that committed the run should not
        # wait for it; the relay's next tick retries.
        outbox_relay(only_ids=message_ids, retry_policy=_ONE_TRY)
    except Exception:  # the relay retries; the request that committed the run must succeed
        log.exception("outbox kick failed; the relay will retry")


@dataclass
class RelayReport:
    published: int = 0
    discarded: int = 0
    failed: int = 0
    last_error: str = ""


def _backoff_s(tries: int) -> float:
    """Exponential with full jitter, capped: a fleet of relays doesn't hammer a broker
    that just came back."""
    cap = float(settings.OUTBOX_RETRY_MAX_S)
    return random.uniform(0, min(cap, 2.0 ** min(tries, 16)))


def _publish(app: Celery, message: OutboxMessage, *, retry_policy: dict[str, float]) -> None:
    # The payload is sent as a JSON string so that a worker reads it with its own spec
    # parser, version check first, rather than with whatever the serializer makes of it.
    app.send_task(
        message.task_name,
        args=[json.dumps(message.payload, sort_keys=True)],
        queue=message.queue,
        routing_key=message.queue,
        task_id=message.task_id,
        soft_time_limit=message.soft_time_limit_s,
        time_limit=message.time_limit_s,
        retry=True,
        retry_policy=retry_policy,
    )


def _pending() -> Any:
    now = timezone.now()
    return (
        OutboxMessage.objects.filter(published_at__isnull=True, discarded_at__isnull=True)
        .filter(Q(next_try_at__isnull=True) | Q(next_try_at__lte=now))
        .order_by("id")
    )


def outbox_relay(
    *,
    app: Celery | None = None,
    limit: int = 500,
    only_ids: list[int] | None = None,
    retry_policy: dict[str, float] | None = None,
) -> RelayReport:
    """Publish pending messages one at a time, each under its row lock.

    `SELECT … FOR UPDATE SKIP LOCKED` lets several relays (beat, a kick, the management
    command) run at once without publishing the same row twice; the row is marked
    published in the same transaction, after the broker accepted it. A broker error stops
    the pass (the next message would fail the same way) and schedules a retry with backoff.
    """
    app = app or publisher_app()
    report = RelayReport()
    for _ in range(limit):
        with transaction.atomic():
            pending = _pending()
            if only_ids is not None:
                pending = pending.filter(pk__in=only_ids)
            message = pending.select_for_update(skip_locked=True).first()
            if message is None:
                break
            run = Run.objects.only("state", "attempt").get(pk=message.run_id)
            if run.state != RunState.QUEUED or run.attempt != message.attempt:
                # Cancelled (or requeued again) before it left: nothing to deliver.
                message.discarded_at = timezone.now()
                message.save(update_fields=["discarded_at"])
                report.discarded += 1
                continue
            try:
                _publish(app, message, retry_policy=retry_policy or _PUBLISH_RETRY_POLICY)
            except Exception as exc:  # kombu raises several types for a broker that is down
                message.tries += 1
                message.last_error = f"{type(exc).__name__}: {exc}"[:2000]
                message.next_try_at = timezone.now() + timedelta(seconds=_backoff_s(message.tries))
                message.save(update_fields=["tries", "last_error", "next_try_at"])
                report.failed += 1
                report.last_error = message.last_error
                log.warning("outbox %s not published (try %s): %s", message.pk, message.tries, exc)
                break
            message.tries += 1
            message.publish_count += 1
            message.published_at = timezone.now()
            message.last_error = ""
            message.save(update_fields=["tries", "publish_count", "published_at", "last_error"])
            report.published += 1
    return report


def outbox_retry_now() -> int:
    """Forget the backoff of every pending message (the operator knows the broker is back)."""
    return OutboxMessage.objects.filter(published_at__isnull=True, discarded_at__isnull=True).update(
        next_try_at=None
    )
