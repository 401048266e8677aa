from __future__ import annotations

from typing import Any

from accounts_app.models import ApiToken, UserRole
from accounts_app.models.tokens import ApiTokenQuerySet
from accounts_app.roles import Role
from kernel.fixed_read import FixedRead

# Every page reads its user's role (has_role, visible_routes): the ORM built and compiled the
# one-to-one's query on each request, ~0.6 ms of a ~2 ms floor (issue 26, point 1).
_ROLE_ROW = FixedRead(lambda user_id: UserRole.objects.filter(user_id=user_id), user_id=int)


def _role_row(user: Any) -> UserRole | None:
    """`user.specpact_role`, or None without one, read once per user object and cached
    where the one-to-one's descriptor caches it (so `user.specpact_role = row` still holds)."""
    related = user._meta.model.specpact_role.related  # user may be a SimpleLazyObject
    if not related.is_cached(user):
        rows = _ROLE_ROW(user_id=user.pk)
        related.set_cached_value(user, rows[0] if rows else None)
    row: UserRole | None = related.get_cached_value(user)
    return row


def user_role(user: Any) -> str | None:
    """The role of a user: None when anonymous or inactive, admin for superusers,
    the UserRole row otherwise (viewer without one)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN.value
    row = _role_row(user)
    return str(row.role) if row is not None else Role.VIEWER.value


def user_route_slugs(user: Any) -> list[str] | None:
    """The routes a user is limited to; None for every route (superusers, users without
    a UserRole row or with an empty scope). Anonymous users see no route page at all
    (login_required), so they count as unscoped here."""
    if user is None or not getattr(user, "is_authenticated", False) or user.is_superuser:
        return None
    row = _role_row(user)
    return sorted(row.route_slugs) if row is not None and row.route_slugs else None


def tokens_visible_to(user: Any, *, is_admin: bool) -> ApiTokenQuerySet:
    qs = ApiToken.objects.select_related("user").order_by("-created_at")
    return qs if is_admin else qs.filter(user=user)


def user_by_username(username: str) -> Any:
    """The user named `username`, or None."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username=username).first()
