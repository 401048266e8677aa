"""Project-wide tables that belong to no domain: the API's idempotency keys
(kernel/api/idempotency.py) and beat's lease (kernel/beat.py)."""

from __future__ import annotations

from django.db import models


class IdempotencyKey(models.Model):
    """One `Idempotency-Key` a caller sent with a creating POST, and the answer it got.

    `scope` is whose key it is (`token:<id>`, or `user:<id>` for a browser session), so two
    pipelines can't see each other's answers. `fingerprint` is the SHA-256 of method, path
    and body: the same key with another request is refused. A row with no `status` is a
    request still being answered (its row lock is held until it is)."""

    scope = models.CharField(max_length=64)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rendered JSON, as text: a JSON column would reorder its keys.
    body = models.TextField(blank=True, default="")
    headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_key_unique_per_scope")
        ]

    def __str__(self) -> str:
        return f"{self.scope} {self.key}"


class BeatLease(models.Model):
    """Who may send beat's schedule now (kernel/beat.py): one row per schedule, held by one
    beat process until `expires_at` (the database's clock, so the hosts' clocks don't
    matter). The holder renews it well before then; another beat takes it only once it
    has run out, so a second beat (a standby on another host, or one started by mistake)
    sends nothing while the first is alive, and takes over within a lease after it dies."""

    name = models.CharField(max_length=64, unique=True)
    # host:pid:random of the beat holding it ("" before anyone has).
    holder = models.CharField(max_length=200, blank=True, default="")
    expires_at = models.DateTimeField()
    renewed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} held by {self.holder or 'nobody'} until {self.expires_at}"
