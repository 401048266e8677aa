"""Webhook subscriptions and their deliveries (the outbox the relay sends from)."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.dateparse import parse_datetime


class Subscription(models.Model):
    """An admin's subscription of a URL to events, optionally for one route.

    `events` lists event names (`release.approved`), families (`release.*`) or `*`
    (webhooks_app/events.py). `secret_encrypted` is the signing secret, encrypted with a
    key derived from WEBHOOK_SECRET_KEY (or SECRET_KEY): the relay needs the secret itself
    to sign, so it can't be hashed like a token; it is shown once, at creation."""

    url = models.URLField(max_length=2048)
    events = models.JSONField(default=list)
    route = models.CharField(max_length=64, blank=True, help_text="Only this route's events; blank: all.")
    description = models.TextField(blank=True)
    secret_encrypted = models.TextField()
    secret_hint = models.CharField(max_length=12)
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} → {self.url}"


class DeliveryState(models.TextChoices):
    PENDING = "pending", "pending"
    RETRYING = "retrying", "retrying"
    DELIVERED = "delivered", "delivered"
    DEAD = "dead", "dead"


class Delivery(models.Model):
    """One event for one subscription: written in the event's own transaction, sent by the
    relay. `body` is the exact JSON sent (and signed), kept as text so every try and every
    redelivery sends the same bytes."""

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=64)
    # What makes this delivery unique per subscription (the audit event's id, or the broken
    # link of a chain failure), so an event is written to the outbox once.
    event_key = models.CharField(max_length=80)
    route = models.CharField(max_length=64, blank=True)
    body = models.TextField()
    state = models.CharField(max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "event_key"], name="webhook_delivery_once_per_event"
            )
        ]
        indexes = [models.Index(fields=["state", "next_attempt_at"], name="webhook_delivery_due")]

    def __str__(self) -> str:
        return f"delivery {self.pk} {self.event} ({self.state})"

    @property
    def envelope(self) -> dict[str, Any]:
        """The body as sent: {"id", "event", "occurred_at", "route", "webhook", "data"}."""
        try:
            parsed = json.loads(self.body)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    @property
    def occurred_at(self) -> datetime | None:
        """When the event itself happened (the audit event's time), not when it was sent."""
        when = self.envelope.get("occurred_at")
        return parse_datetime(when) if isinstance(when, str) else None

    @property
    def subject(self) -> tuple[str, str] | None:
        """The object the event is about, (type, id), as its audit event names it."""
        obj = (self.envelope.get("data") or {}).get("object") or {}
        if not obj.get("type") or obj.get("id") in (None, ""):
            return None
        return str(obj["type"]), str(obj["id"])
