from __future__ import annotations

from typing import Any

from rest_framework import serializers

from audit_app.models import AuditEvent


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


class AuditQuerySerializer(serializers.Serializer[Any]):
    action = serializers.CharField(required=False, default="", max_length=64)
    route = serializers.CharField(required=False, default="", max_length=64)
    actor = serializers.CharField(required=False, default="", max_length=160)
    object = serializers.CharField(required=False, default="", max_length=265)
    since = serializers.DateTimeField(required=False, default=None)
    until = serializers.DateTimeField(required=False, default=None)


class ChainStatusSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    events = serializers.IntegerField()
    first_broken = serializers.IntegerField(allow_null=True)
