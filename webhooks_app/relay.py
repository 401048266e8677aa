"""The relay: sends due deliveries from the outbox, signed, through kernel/outbound.py.

A delivery is claimed by pushing its `next_attempt_at` past the send's deadline in a short
transaction (`SELECT … FOR UPDATE SKIP LOCKED`), so two relays never send it at once and a
relay that dies mid-send leaves it due again. A 2xx answer delivers it; anything else (an
error status, a redirect — never followed —, a refused address, no answer in time) is a
failed try: the next waits WEBHOOK_RETRY_BASE_S × 2^(tries−1), capped at
WEBHOOK_RETRY_MAX_S, with full jitter; after WEBHOOK_MAX_ATTEMPTS tries it is dead (an
audit event says so). Dead deliveries go again only by redelivery."""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from audit_app.actors import Actor
from audit_app.services import audit_record
from kernel.outbound import OutboundFailed, OutboundRefused, request
from webhooks_app.models import Delivery, DeliveryState
from webhooks_app.policy import delivery_policy
from webhooks_app.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, decrypt_secret, signature

log = logging.getLogger("specpact.webhooks")

_DUE = (DeliveryState.PENDING, DeliveryState.RETRYING)
# What a receiver may answer: read at most this much of it (kept for the deliveries page).
_MAX_ANSWER = 4096


def retry_delay_s(attempts: int) -> float:
    """Full jitter over an exponential ceiling (attempts: tries made so far, ≥ 1)."""
    ceiling = min(
        float(settings.WEBHOOK_RETRY_MAX_S), float(settings.WEBHOOK_RETRY_BASE_S) * 2 ** (attempts - 1)
    )
    return random.uniform(0, ceiling)


def _claim(limit: int) -> list[int]:
    now = timezone.now()
    lease = timedelta(seconds=float(settings.WEBHOOK_DEADLINE_S) + 30)
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(state__in=_DUE, next_attempt_at__lte=now)
            .order_by("next_attempt_at", "id")
            .values_list("id", flat=True)[:limit]
        )
        Delivery.objects.filter(pk__in=ids).update(next_attempt_at=now + lease)
    return ids


def _send(delivery: Delivery) -> tuple[int | None, str]:
    """(status, error in words): a 2xx status and no error is a success."""
    secret = decrypt_secret(delivery.subscription.secret_encrypted)
    if secret is None:
        return None, "the subscription's secret can't be read (WEBHOOK_SECRET_KEY changed): create it again"
    body = delivery.body.encode()
    stamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "SpecPact-Webhooks/1",
        "X-SpecPact-Event": delivery.event,
        "X-SpecPact-Delivery": str(delivery.uuid),
        TIMESTAMP_HEADER: str(stamp),
        SIGNATURE_HEADER: signature(secret, stamp, body),
    }
    try:
        answer = request(
            "POST",
            delivery.subscription.url,
            delivery_policy(),
            headers=headers,
            content=body,
            deadline_s=float(settings.WEBHOOK_DEADLINE_S),
            max_bytes=_MAX_ANSWER,
        )
    except OutboundRefused as exc:
        return None, f"refused: {exc.errors[0].message if exc.errors else exc.detail}"
    except OutboundFailed as exc:
        return None, str(exc)
    if 200 <= answer.status < 300:
        return answer.status, ""
    if 300 <= answer.status < 400:
        where = answer.headers.get("location", "?")
        return answer.status, f"answered {answer.status} (redirect to {where}, not followed)"
    return answer.status, f"answered {answer.status}"


def _record(delivery_id: int, status: int | None, error: str) -> None:
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().select_related("subscription").get(pk=delivery_id)
        if delivery.state not in _DUE:
            return  # redelivered or changed meanwhile
        delivery.attempts += 1
        delivery.last_status = status
        delivery.last_error = error[:1000]
        now = timezone.now()
        if not error:
            delivery.state, delivery.delivered_at = DeliveryState.DELIVERED, now
        elif delivery.attempts >= int(settings.WEBHOOK_MAX_ATTEMPTS):
            delivery.state = DeliveryState.DEAD
            audit_record(
                actor=Actor.system("webhooks"),
                action="webhook.delivery_dead",
                obj_type="webhook_delivery",
                obj_id=delivery.pk,
                route=delivery.route or None,
                after={
                    "event": delivery.event,
                    "attempts": delivery.attempts,
                    "last_error": delivery.last_error,
                },
                reason=f"no successful answer after {delivery.attempts} tries",
            )
        else:
            delivery.state = DeliveryState.RETRYING
            delivery.next_attempt_at = now + timedelta(seconds=retry_delay_s(delivery.attempts))
        delivery.save()


def relay_once(limit: int = 50) -> int:
    """Send what is due now; returns how many tries were made."""
    tried = 0
    for delivery_id in _claim(limit):
        delivery = Delivery.objects.select_related("subscription").filter(pk=delivery_id).first()
        if delivery is None:
            continue
        status, error = _send(delivery)
        if error:
            log.warning("webhook delivery %s (%s) failed: %s", delivery.pk, delivery.event, error)
        _record(delivery.pk, status, error)
        tried += 1
    return tried
