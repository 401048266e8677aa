from __future__ import annotations

from django.db.models import QuerySet

from kernel.errors import NotFound
from webhooks_app.models import Delivery, Subscription


def subscription_list(*, routes_in_scope: list[str] | None = None) -> QuerySet[Subscription]:
    """`routes_in_scope` (a scoped token's routes) keeps the subscriptions to one of them:
    one with no route filter is every route's, so it is no scoped token's."""
    qs = Subscription.objects.select_related("created_by").order_by("id")
    return qs if routes_in_scope is None else qs.filter(route__in=routes_in_scope)


def subscription_get(subscription_id: int, *, routes_in_scope: list[str] | None = None) -> Subscription:
    """404 for a subscription outside the scope too: its existence is not confirmed."""
    subscription = subscription_list(routes_in_scope=routes_in_scope).filter(pk=subscription_id).first()
    if subscription is None:
        raise NotFound(f"No webhook {subscription_id}.")
    return subscription


def delivery_list(
    subscription: Subscription | None = None, *, routes_in_scope: list[str] | None = None
) -> QuerySet[Delivery]:
    """Newest first; with `routes_in_scope`, only the deliveries of subscriptions in it."""
    qs = Delivery.objects.select_related("subscription").order_by("-id")
    if routes_in_scope is not None:
        qs = qs.filter(subscription__route__in=routes_in_scope)
    return qs if subscription is None else qs.filter(subscription=subscription)
