from __future__ import annotations

from typing import Any

from rest_framework import serializers

from audit_app.checkpoints import Signed
from audit_app.models import AuditCheckpoint, AuditEvent


class AuditEventSerializer(serializers.ModelSerializer[AuditEvent]):
    actor = serializers.CharField(source="actor_label")
    object = serializers.SerializerMethodField()
    route = serializers.SerializerMethodField()

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "at",
            "actor",
            "action",
            "object",
            "object_type",
            "object_id",
            "route",
            "before",
            "after",
            "reason",
            "request_id",
            "prev_hash",
            "hash",
        ]

    def get_object(self, event: AuditEvent) -> str:
        return f"{event.object_type}:{event.object_id}"

    def get_route(self, event: AuditEvent) -> str | None:
        return event.route or None


class CheckpointSerializer(serializers.ModelSerializer[AuditCheckpoint]):
    message = serializers.SerializerMethodField(help_text="the exact bytes signed (UTF-8)")

    class Meta:
        model = AuditCheckpoint
        fields = ["id", "event_id", "event_hash", "signed_at", "key_id", "signature", "message"]

    def get_message(self, row: AuditCheckpoint) -> str:
        return Signed.of(row).message().decode()


class ChainCheckedSerializer(serializers.Serializer[Any]):
    scope = serializers.ChoiceField(
        choices=["full", "since_mark"],
        help_text="full: every event hashed for this answer; since_mark: only those from walked_from on, "
        "the ones before by the last full walk",
    )
    at = serializers.DateTimeField(help_text="when this answer was computed")
    walked_from = serializers.IntegerField(help_text="the first event hashed for this answer")
    walked = serializers.IntegerField(help_text="how many events were hashed for this answer")
    full_at = serializers.DateTimeField(allow_null=True, help_text="when the whole chain was last walked")
    full_through = serializers.IntegerField(help_text="the last event that full walk covered")


class ChainStatusSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    events = serializers.IntegerField(
        help_text="events in the chain; for a route-scoped token, only those of its routes"
    )
    first_broken = serializers.IntegerField(allow_null=True)
    problem = serializers.ChoiceField(
        choices=[
            "broken_link",
            "rewritten",
            "truncated",
            "forged_checkpoint",
            "checkpoint_missing",
            "result_changed",
        ],
        allow_null=True,
        help_text="what broke: the walk (broken_link), the chain against a signed checkpoint, a checkpoint "
        "whose signature no configured key verifies, a head exported off the database that its rows no "
        "longer hold, or a result the gate judged that no longer has the digest it recorded",
    )
    detail = serializers.CharField(
        allow_null=True, help_text="the break in words: which checkpoint or event, and why"
    )
    checkpoint = CheckpointSerializer(
        allow_null=True, help_text="the checkpoint that caught it, else the latest that still holds"
    )
    intact_through = serializers.IntegerField(
        allow_null=True, help_text="the last event a signed checkpoint still vouches for"
    )
    checked = ChainCheckedSerializer(
        help_text="what was hashed for this answer, and when the whole chain was"
    )


class PublicKeySerializer(serializers.Serializer[Any]):
    algorithm = serializers.CharField()
    key_id = serializers.CharField()
    public_key = serializers.CharField(help_text="PEM (SubjectPublicKeyInfo)")
