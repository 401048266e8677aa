from __future__ import annotations

from typing import Any

from rest_framework import serializers

from contracts_app.models import ContractVersion, Route
from kernel.text import DESCRIPTION_MAX


class RouteSerializer(serializers.ModelSerializer[Route]):
    active_version = serializers.SerializerMethodField()
    active_method = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Route
        fields = [
            "slug",
            "description",
            "active_version",
            "active_method",
            "active_since",
            "created_at",
            "url",
        ]

    def get_active_version(self, route: Route) -> int | None:
        return route.active_version.number if route.active_version else None

    def get_active_method(self, route: Route) -> str | None:
        return route.active_version.speculation_method if route.active_version else None

    def get_url(self, route: Route) -> str:
        return f"/api/v1/routes/{route.slug}/"


class RouteCreateSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField(max_length=64)
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=DESCRIPTION_MAX
    )


class RouteUpdateSerializer(serializers.Serializer[Any]):
    description = serializers.CharField(allow_blank=True, max_length=DESCRIPTION_MAX)


class VersionSummarySerializer(serializers.ModelSerializer[ContractVersion]):
    version = serializers.IntegerField(source="number")
    route = serializers.CharField(source="route.slug")
    method = serializers.CharField(source="speculation_method")
    # None for a version no user uploaded (the demo's seed, a data import).
    created_by = serializers.CharField(source="created_by.username", default=None, allow_null=True)

    class Meta:
        model = ContractVersion
        fields = ["route", "version", "digest", "method", "source_format", "created_by", "created_at"]


class VersionDetailSerializer(VersionSummarySerializer):
    class Meta(VersionSummarySerializer.Meta):
        fields = [*VersionSummarySerializer.Meta.fields, "document"]


class DiffQuerySerializer(serializers.Serializer[Any]):
    # `from` is a Python keyword: the field is declared under another name below.
    to = serializers.IntegerField(min_value=1, max_value=2**31 - 1)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
        return fields


class RenderQuerySerializer(serializers.Serializer[Any]):
    engine = serializers.CharField(required=False, allow_blank=False)


class ImportSerializer(serializers.Serializer[Any]):
    engine = serializers.CharField()
    command = serializers.JSONField(help_text="the command line, as one string or as a list of arguments")
    files = serializers.DictField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=256 * 1024),
        required=False,
        help_text="content of the files the command names, by the name it gives them "
        "(TensorRT-LLM: the YAML of --config / --extra_llm_api_options)",
    )

    def validate_files(self, value: dict[str, str]) -> dict[str, str]:
        if len(value) > 4:
            raise serializers.ValidationError("at most 4 files")
        return value


class FieldErrorSerializer(serializers.Serializer[Any]):
    path = serializers.CharField()
    message = serializers.CharField()


class ChangeSerializer(serializers.Serializer[Any]):
    path = serializers.CharField(help_text="semantic path, e.g. assets[role=draft].revision")
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)
    impact = serializers.ChoiceField(choices=["route-identity", "scope", "policy", "cosmetic"])
    kind = serializers.ChoiceField(choices=["added", "removed", "changed"])


class DiffSerializer(serializers.Serializer[Any]):
    route = serializers.CharField()
    highest_impact = serializers.CharField(allow_null=True)
    requires_benchmark = serializers.BooleanField()
    changes = ChangeSerializer(many=True)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField()
        fields["to"] = serializers.IntegerField()
        return fields


class RenderSerializer(serializers.Serializer[Any]):
    route = serializers.CharField()
    version = serializers.IntegerField()
    engine = serializers.CharField()
    argv = serializers.ListField(child=serializers.CharField())
    command = serializers.CharField(help_text="the argv joined for a shell, after `VAR=value` for `env`")
    config = serializers.JSONField(help_text="the engine's own configuration object")
    notes = serializers.ListField(child=serializers.CharField())
    env = serializers.DictField(
        child=serializers.CharField(),
        help_text="environment variables the engine starts with (the contract's speculation.env)",
    )


class ValidateResultSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    route = serializers.CharField()
    digest = serializers.CharField()
    format = serializers.ChoiceField(choices=["yaml", "json"])
    warnings = FieldErrorSerializer(many=True)


class ImportResultSerializer(serializers.Serializer[Any]):
    engine = serializers.CharField()
    document = serializers.JSONField()
    yaml = serializers.CharField()
    unresolved = FieldErrorSerializer(many=True, help_text="fields the command cannot say: fill them in")


class VersionUploadSerializer(VersionSummarySerializer):
    created = serializers.BooleanField()
    diff_from_active = ChangeSerializer(many=True)

    class Meta(VersionSummarySerializer.Meta):
        fields = [*VersionSummarySerializer.Meta.fields, "created", "diff_from_active"]
