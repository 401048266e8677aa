from __future__ import annotations

from typing import Any

from rest_framework import serializers

from workloads_app.models import WorkloadVersion
from workloads_app.selectors import workload_uses


class UploadParams(serializers.Serializer[Any]):
    """The upload's options (query string for a raw body, form fields for multipart)."""

    name = serializers.CharField(max_length=100, help_text="e.g. support-chat-2026-11")
    format = serializers.ChoiceField(choices=WorkloadVersion.Format.choices, default="specpact")
    # The option's public name; DRF's metaclass takes declared fields off the class, so
    # it does not shadow Field.source at run time.
    source = serializers.CharField(  # type: ignore[assignment]
        max_length=200, required=False, allow_blank=True, help_text="where it came from, e.g. production logs"
    )
    redact = serializers.BooleanField(default=False, help_text="replace e-mail addresses, phone numbers, …")
    redact_pattern = serializers.ListField(
        child=serializers.CharField(max_length=300),
        required=False,
        help_text="extra regular expressions to redact, RE2 syntax (no backreferences or lookaround)",
    )
    context_tokens = serializers.IntegerField(
        min_value=1, required=False, help_text="the target's context: longer prompts are refused"
    )


def first_values(params: dict[str, Any]) -> dict[str, Any]:
    """QueryDict-style lists → one value each, except the repeatable `redact_pattern`."""
    return {k: (v if k == "redact_pattern" else v[-1]) for k, v in params.items() if v}


class WorkloadSummarySerializer(serializers.ModelSerializer[WorkloadVersion]):
    ref = serializers.CharField(read_only=True, help_text="name@sha256:<hex>: how a version is addressed")
    dataset = serializers.CharField(read_only=True, help_text="what a contract's dataset field says")
    prompts = serializers.IntegerField(source="requests", read_only=True, help_text="requests (every turn)")
    created_by = serializers.SerializerMethodField()
    deleted = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = WorkloadVersion
        fields = [
            "name",
            "digest",
            "ref",
            "dataset",
            "prompts",
            "conversations",
            "format",
            "source",
            "size_bytes",
            "created_by",
            "created_at",
            "deleted",
            "url",
        ]

    def get_created_by(self, obj: WorkloadVersion) -> str | None:
        return obj.created_by.get_username() if obj.created_by else None

    def get_deleted(self, obj: WorkloadVersion) -> bool:
        return not getattr(obj, "has_content", True)

    def get_url(self, obj: WorkloadVersion) -> str:
        return f"/api/v1/workloads/{obj.ref}/"


class WorkloadDetailSerializer(WorkloadSummarySerializer):
    used_by = serializers.SerializerMethodField(help_text="contract versions on routes you may see")
    content_url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    class Meta(WorkloadSummarySerializer.Meta):
        fields = [
            *WorkloadSummarySerializer.Meta.fields,
            "upload_bytes",
            "redaction",
            "warnings",
            "stats",
            "used_by",
            "content_url",
            "page_url",
        ]

    def get_used_by(self, obj: WorkloadVersion) -> list[dict[str, Any]]:
        subject = self.context.get("request")
        return [u.__dict__ for u in workload_uses(obj, subject)]

    def get_content_url(self, obj: WorkloadVersion) -> str | None:
        return None if self.get_deleted(obj) else f"/api/v1/workloads/{obj.ref}/content"

    def get_page_url(self, obj: WorkloadVersion) -> str:
        return f"/workloads/{obj.ref}/"


class DeleteIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=2000)
