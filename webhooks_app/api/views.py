"""webhooks/, webhooks/{id}/, webhooks/{id}/deliveries/, …/deliveries/{n}/redeliver: admins only;
a route-scoped token sees and acts on its routes' subscriptions only (others answer 404)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions, routes_in_scope
from audit_app.actors import actor_from_request
from kernel.api.pagination import NewestFirstCursorPagination, paginate, paginate_by_cursor
from kernel.errors import NotFound
from webhooks_app import selectors, services
from webhooks_app.api.serializers import (
    DeliverySerializer,
    SubscriptionCreatedSerializer,
    SubscriptionCreateSerializer,
    SubscriptionSerializer,
)
from webhooks_app.models import Delivery, Subscription

_EXAMPLE = OpenApiExample(
    "Release verdicts of one route",
    value={"url": "https://ci.example.com/hooks/specpact", "events": ["release.*"], "route": "support-chat"},
    request_only=True,
)


class WebhookListApi(GenericAPIView[Subscription]):
    queryset = Subscription.objects.none()
    serializer_class = SubscriptionCreateSerializer

    def get_permissions(self) -> list[Any]:
        return role_permissions("admin")

    @extend_schema(responses=SubscriptionSerializer(many=True), summary="List webhook subscriptions")
    def get(self, request: Request) -> Response:
        return paginate(
            request,
            self,
            selectors.subscription_list(routes_in_scope=routes_in_scope(request)),
            SubscriptionSerializer,
        )

    # No Idempotency-Key here: a replay would have to store the secret it showed.
    @extend_schema(
        request=SubscriptionCreateSerializer,
        responses={201: SubscriptionCreatedSerializer},
        examples=[_EXAMPLE],
        summary="Subscribe a URL to events",
        description="The answer holds `secret`, the key of the deliveries' HMAC-SHA256 signature "
        "(X-SpecPact-Signature over `<X-SpecPact-Timestamp>.<body>`): shown this once.",
    )
    def post(self, request: Request) -> Response:
        data = SubscriptionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.subscription_create(**data.validated_data, actor=actor_from_request(request))
        body = {**SubscriptionSerializer(created.subscription).data, "secret": created.secret}
        return Response(
            body,
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/v1/webhooks/{created.subscription.pk}/"},
        )


class WebhookDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("admin")

    @extend_schema(responses=SubscriptionSerializer, summary="A webhook subscription")
    def get(self, request: Request, webhook_id: int) -> Response:
        subscription = selectors.subscription_get(webhook_id, routes_in_scope=routes_in_scope(request))
        return Response(SubscriptionSerializer(subscription).data)

    @extend_schema(responses={204: None}, summary="Delete a webhook subscription and its deliveries")
    def delete(self, request: Request, webhook_id: int) -> Response:
        services.subscription_delete(subscription_id=webhook_id, actor=actor_from_request(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryListApi(GenericAPIView[Delivery]):
    queryset = Delivery.objects.none()
    serializer_class = DeliverySerializer
    pagination_class = NewestFirstCursorPagination

    def get_permissions(self) -> list[Any]:
        return role_permissions("admin")

    @extend_schema(responses=DeliverySerializer(many=True), summary="A webhook's deliveries, newest first")
    def get(self, request: Request, webhook_id: int) -> Response:
        subscription = selectors.subscription_get(webhook_id, routes_in_scope=routes_in_scope(request))
        return paginate_by_cursor(request, self, selectors.delivery_list(subscription), DeliverySerializer)


class DeliveryRedeliverApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("admin")

    @extend_schema(
        request=None, responses=DeliverySerializer, summary="Send a delivery again (its tries start over)"
    )
    def post(self, request: Request, webhook_id: int, delivery_id: int) -> Response:
        subscription = selectors.subscription_get(webhook_id, routes_in_scope=routes_in_scope(request))
        if not selectors.delivery_list(subscription).filter(pk=delivery_id).exists():
            raise NotFound(f"No delivery {delivery_id} of webhook {webhook_id}.")
        delivery = services.delivery_redeliver(delivery_id=delivery_id, actor=actor_from_request(request))
        return Response(DeliverySerializer(delivery).data)
