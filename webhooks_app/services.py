"""Writes for webhooks: subscriptions (admins only), the outbox rows events produce, and
redelivery. Every change to a subscription, and a redelivery, is an audit event.

Route scope: a scoped admin token subscribes only to a route of its own (a subscription
without a route is every route's: 403), and deletes or redelivers only what belongs to
subscriptions of its routes; anything else is a 404, as if it did not exist."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts_app.permissions import ensure_fleet_wide, ensure_route_access, require_role, routes_in_scope
from audit_app.actors import as_actor
from audit_app.services import audit_record
from kernel.errors import DomainError, FieldError, NotFound
from kernel.outbound import OutboundFailed, check_url
from kernel.text import DESCRIPTION_MAX, checked_text
from webhooks_app.events import matches, pattern_problem
from webhooks_app.models import Delivery, DeliveryState, Subscription
from webhooks_app.policy import delivery_policy
from webhooks_app.signing import encrypt_secret, new_secret


@dataclass(frozen=True)
class CreatedSubscription:
    subscription: Subscription
    secret: str  # shown once: only here


def _checked_events(events: list[str]) -> list[str]:
    if not events:
        raise DomainError("Name at least one event.", errors=[FieldError("events", "at least one event")])
    errors = [FieldError(f"events[{i}]", why) for i, e in enumerate(events) if (why := pattern_problem(e))]
    if errors:
        raise DomainError("Some events can't be subscribed to; see errors.", errors=errors)
    return sorted(set(events))


def subscription_create(
    *, url: str, events: list[str], route: str = "", description: str = "", actor: Any
) -> CreatedSubscription:
    who = as_actor(actor)
    require_role(who, "admin")
    if route:
        ensure_route_access(who, route)
    else:
        ensure_fleet_wide(who, "subscribe to every route's events (name a route)")
    checked = _checked_events(events)
    description = checked_text(description, field="description", max_length=DESCRIPTION_MAX)
    # Refused now (400 naming `url`) if the policy refuses it; checked again at every
    # delivery, since what a name resolves to can change.
    try:
        check_url(url, delivery_policy(), field_path="url")
    except OutboundFailed as exc:  # the name does not resolve (here, now)
        raise DomainError(
            "That address cannot be used; see errors.", errors=[FieldError("url", str(exc))]
        ) from None
    secret = new_secret()
    with transaction.atomic():
        subscription = Subscription.objects.create(
            url=url,
            events=checked,
            route=route,
            description=description,
            secret_encrypted=encrypt_secret(secret),
            secret_hint=secret[-4:],
            created_by=who.user,
        )
        audit_record(
            actor=who,
            action="webhook.created",
            obj_type="webhook",
            obj_id=subscription.pk,
            route=route or None,
            after={"url": url, "events": checked, "route": route or None},
        )
    return CreatedSubscription(subscription, secret)


def subscription_delete(*, subscription_id: int, actor: Any) -> None:
    who = as_actor(actor)
    require_role(who, "admin")
    with transaction.atomic():
        scope = routes_in_scope(who)
        locked = Subscription.objects.select_for_update().filter(pk=subscription_id)
        subscription = (locked if scope is None else locked.filter(route__in=scope)).first()
        if subscription is None:
            raise NotFound(f"No webhook {subscription_id}.")
        audit_record(
            actor=who,
            action="webhook.deleted",
            obj_type="webhook",
            obj_id=subscription.pk,
            route=subscription.route or None,
            before={"url": subscription.url, "events": subscription.events},
        )
        subscription.delete()


def deliveries_write(
    *, event: str, event_key: str, route: str, data: dict[str, Any], occurred_at: datetime | None = None
) -> int:
    """One outbox row per active subscription the event matches, in the caller's
    transaction; an event already written for a subscription is not written twice.
    Returns how many subscriptions it matched."""
    subscriptions = [
        s
        for s in Subscription.objects.filter(is_active=True).only("id", "events", "route")
        if matches(s.events, event) and (not s.route or s.route == route)
    ]
    if not subscriptions:
        return 0
    now = timezone.now()
    rows = []
    for subscription in subscriptions:
        delivery = Delivery(
            subscription=subscription,
            event=event,
            event_key=event_key,
            route=route,
            next_attempt_at=now,
            body="",
        )
        envelope = {
            "id": str(delivery.uuid),
            "event": event,
            "occurred_at": (occurred_at or now).isoformat(),
            "route": route or None,
            "webhook": subscription.pk,
            "data": data,
        }
        delivery.body = json.dumps(envelope, sort_keys=True, separators=(",", ":"), default=str)
        rows.append(delivery)
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def delivery_redeliver(*, delivery_id: int, actor: Any) -> Delivery:
    """Send a delivery again, whatever its state: its tries start over (same body, same id)."""
    who = as_actor(actor)
    require_role(who, "admin")
    with transaction.atomic():
        scope = routes_in_scope(who)
        locked = Delivery.objects.select_for_update().filter(pk=delivery_id)
        delivery = (locked if scope is None else locked.filter(subscription__route__in=scope)).first()
        if delivery is None:
            raise NotFound(f"No delivery {delivery_id}.")
        before = {"state": delivery.state, "attempts": delivery.attempts}
        delivery.state = DeliveryState.PENDING
        delivery.attempts = 0
        delivery.next_attempt_at = timezone.now()
        delivery.last_error = ""
        delivery.save(update_fields=["state", "attempts", "next_attempt_at", "last_error"])
        audit_record(
            actor=who,
            action="webhook.redelivered",
            obj_type="webhook_delivery",
            obj_id=delivery.pk,
            route=delivery.route or None,
            before=before,
            after={"state": delivery.state},
        )
    return delivery


def max_attempts() -> int:
    return int(settings.WEBHOOK_MAX_ATTEMPTS)
