from __future__ import annotations

from django.db.models import QuerySet

from kernel.errors import NotFound
from webhooks_app.models import Delivery, Subscription


def subscription_list() -> QuerySet[Subscription]:
    return Subscription.objects.select_related("created_by").order_by("id")


def subscription_get(subscription_id: int) -> Subscription:
    subscription = subscription_list().filter(pk=subscription_id).first()
    if subscription is None:
        raise NotFound(f"No webhook {subscription_id}.")
    return subscription


def delivery_list(subscription: Subscription | None = None) -> QuerySet[Delivery]:
    """Newest first."""
    qs = Delivery.objects.select_related("subscription").order_by("-id")
    return qs if subscription is None else qs.filter(subscription=subscription)
