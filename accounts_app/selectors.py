from __future__ import annotations

from typing import Any

from accounts_app.models import ApiToken
from accounts_app.models.tokens import ApiTokenQuerySet
from accounts_app.roles import Role


def user_role(user: Any) -> str | None:
    """The role of a user: None when anonymous or inactive, admin for superusers,
    the UserRole row otherwise (viewer without one)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN.value
    # A missing one-to-one raises RelatedObjectDoesNotExist, an AttributeError: getattr's default.
    row = getattr(user, "specpact_role", None)
    return str(row.role) if row is not None else Role.VIEWER.value


def user_route_slugs(user: Any) -> list[str] | None:
    """The routes a user is limited to; None for every route (superusers, users without
    a UserRole row or with an empty scope). Anonymous users see no route page at all
    (login_required), so they count as unscoped here."""
    if user is None or not getattr(user, "is_authenticated", False) or user.is_superuser:
        return None
    row = getattr(user, "specpact_role", None)
    return sorted(row.route_slugs) if row is not None and row.route_slugs else None


def tokens_visible_to(user: Any, *, is_admin: bool) -> ApiTokenQuerySet:
    qs = ApiToken.objects.select_related("user").order_by("-created_at")
    return qs if is_admin else qs.filter(user=user)


def user_by_username(username: str) -> Any:
    """The user named `username`, or None."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username=username).first()
