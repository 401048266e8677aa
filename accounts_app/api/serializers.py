from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts_app.models import ApiToken, TokenPurpose
from accounts_app.roles import Role
from kernel.text import NAME_MAX, REASON_MAX


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    user = serializers.CharField(source="user.username")
    routes = serializers.ListField(source="route_slugs", child=serializers.CharField())
    state = serializers.CharField()

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "prefix",
            "name",
            "user",
            "role",
            "routes",
            "purpose",
            "state",
            "created_at",
            "expires_at",
            "revoked_at",
            "last_used_at",
        ]


class TokenIssueSerializer(serializers.Serializer[Any]):
    role = serializers.ChoiceField(choices=Role.choices)
    routes = serializers.ListField(child=serializers.SlugField(max_length=64), required=False, default=list)
    name = serializers.CharField(required=False, allow_blank=True, default="", max_length=NAME_MAX)
    purpose = serializers.ChoiceField(
        choices=TokenPurpose.choices,
        required=False,
        default=TokenPurpose.GENERAL,
        help_text="rollout_gate: only the analysis and flagger/ endpoints; needs routes and the viewer role",
    )
    expires_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    user = serializers.CharField(
        required=False, default="", allow_blank=True, help_text="username (admins only); default: yourself"
    )


class TokenRevokeSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=REASON_MAX)
