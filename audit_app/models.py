from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def for_object(self, object_type: str, object_id: object) -> AuditEventQuerySet:
        return self.filter(object_type=object_type, object_id=str(object_id))


class AuditEvent(models.Model):
    """One append-only event of the hash chain. `id` is assigned by `audit_record` under the
    chain lock (last id + 1), so it is part of the hashed content and the chain has no gaps.
    PostgreSQL refuses UPDATE, DELETE and TRUNCATE on this table (migration 0002)."""

    id = models.BigIntegerField(primary_key=True)
    at = models.DateTimeField(db_index=True)
    # PROTECT: deleting a user would have to rewrite their events; deactivate users instead.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_label = models.CharField(max_length=160, db_index=True)
    action = models.CharField(max_length=64, db_index=True)
    object_type = models.CharField(max_length=64)
    # Sized for every id derived from an object: "<route slug, 64>:v<version, up to 10
    # digits>", a username (150), a token prefix; the slug rule stays the format's.
    object_id = models.CharField(max_length=200)
    route = models.CharField(max_length=64, blank=True, db_index=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)
    request_id = models.CharField(max_length=128, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_object_idx")]

    def __str__(self) -> str:
        return f"#{self.id} {self.action} {self.object_type}:{self.object_id}"


class AuditCheckpoint(models.Model):
    """A signed statement "the chain's event `event_id` had hash `event_hash` at
    `signed_at`", Ed25519 with a key the database never holds (audit_app/signing.py).
    Someone who rewrites the chain and recomputes every later hash, or deletes its tail,
    can't make a matching signature: `verify_audit` reports it from the checkpoint. A
    checkpoint is written only over a chain that verified, so the walk can start after the
    latest one (its event and hash are what it needs). Append-only like the events."""

    event_id = models.BigIntegerField()
    event_hash = models.CharField(max_length=64)
    signed_at = models.DateTimeField()
    # The first 16 hex digits of SHA-256 over the raw public key: which key signed it.
    key_id = models.CharField(max_length=16)
    # Base64 of the 64-byte signature over `signing.checkpoint_message(...)`.
    signature = models.CharField(max_length=88)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["key_id", "event_id"], name="audit_checkpoint_once_per_key")
        ]

    def __str__(self) -> str:
        return f"checkpoint #{self.pk} of event #{self.event_id}"


class AuditChainMark(models.Model):
    """How far the chain is known to verify, so the audit page and `audit/verify` hash only
    the events after `through_id` instead of the whole chain on every load (issue 16: 3.6 s
    of CPU at 100,000 events). One row (pk 1), advanced by those loads; `full_*` is the
    last walk of the whole chain (beat's periodic one, `verify_audit`, `?full=true`, or a
    checkpoint's signing), which is what catches an edit before the mark.

    Not evidence, a record of checks: someone who can write the database can move it, as
    they can edit events; the periodic full walk and the signed checkpoints, which it
    never replaces, are what catch them."""

    through_id = models.BigIntegerField(default=0)
    through_hash = models.CharField(max_length=64, blank=True)
    # The newest checkpoint (pk) whose signature a check has verified: later loads check
    # the signatures of newer ones only, and the newest one's hash against its event.
    checkpoints_through = models.BigIntegerField(default=0)
    advanced_at = models.DateTimeField(null=True, blank=True)
    full_at = models.DateTimeField(null=True, blank=True)
    full_through_id = models.BigIntegerField(default=0)
    # The status the last full walk answered (audit_app.checkpoints.AuditStatus).
    full_status = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return f"audit chain verified through #{self.through_id}"
