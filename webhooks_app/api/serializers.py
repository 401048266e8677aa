from __future__ import annotations

from typing import Any

from rest_framework import serializers

from kernel.text import DESCRIPTION_MAX
from webhooks_app.models import Delivery, Subscription


class SubscriptionCreateSerializer(serializers.Serializer[Any]):
    url = serializers.CharField(max_length=2048, help_text="http(s) URL the deliveries are POSTed to.")
    events = serializers.ListField(
        child=serializers.CharField(max_length=64),
        max_length=64,
        help_text="Event names (release.approved), families (release.*) or *.",
    )
    route = serializers.SlugField(max_length=64, required=False, allow_blank=True, default="")
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=DESCRIPTION_MAX
    )


class SubscriptionSerializer(serializers.ModelSerializer[Subscription]):
    route = serializers.SerializerMethodField()
    created_by = serializers.CharField(source="created_by.username", default=None, allow_null=True)
    deliveries_url = serializers.SerializerMethodField()

    class Meta:
        model = Subscription
        fields = [
            "id",
            "url",
            "events",
            "route",
            "description",
            "secret_hint",
            "is_active",
            "created_by",
            "created_at",
            "deliveries_url",
        ]

    def get_route(self, obj: Subscription) -> str | None:
        return obj.route or None

    def get_deliveries_url(self, obj: Subscription) -> str:
        return f"/api/v1/webhooks/{obj.pk}/deliveries/"


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    secret = serializers.CharField(help_text="The signing secret: shown this once, never again.")

    class Meta(SubscriptionSerializer.Meta):
        fields = [*SubscriptionSerializer.Meta.fields, "secret"]


class DeliverySerializer(serializers.ModelSerializer[Delivery]):
    id = serializers.IntegerField()
    delivery = serializers.UUIDField(source="uuid")
    route = serializers.SerializerMethodField()
    # A plain string in the schema, as runs' state is: releases have a `state` enum of their own.
    state = serializers.CharField(read_only=True, help_text="pending, retrying, delivered or dead")

    class Meta:
        model = Delivery
        fields = [
            "id",
            "delivery",
            "event",
            "route",
            "state",
            "attempts",
            "next_attempt_at",
            "last_status",
            "last_error",
            "created_at",
            "delivered_at",
            "body",
        ]

    def get_route(self, obj: Delivery) -> str | None:
        return obj.route or None
