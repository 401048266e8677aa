"""Who may do what: roles (viewer < operator < approver < admin) and route scope.

A subject is a request (DRF or Django), an `audit_app.actors.Actor`, or a user. With a
token, the effective role is the lower of the token's and its user's, and a scoped token
sees only its routes: every other route answers 404, as if it did not exist.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts_app.models import ApiToken
from accounts_app.roles import Role, check_role_name, lower_role, role_rank
from accounts_app.selectors import user_role
from audit_app.actors import Actor
from kernel.errors import Forbidden, NotFound


def _user_and_token(subject: Any) -> tuple[Any, ApiToken | None]:
    if isinstance(subject, Actor):
        token = subject.token
        user = subject.user
    elif isinstance(subject, (Request, HttpRequest)):
        user = subject.user
        token = getattr(subject, "auth", None)
    else:
        user, token = subject, None
    return user, token if isinstance(token, ApiToken) else None


def token_of(subject: Any) -> ApiToken | None:
    return _user_and_token(subject)[1]


def effective_role(subject: Any) -> str | None:
    user, token = _user_and_token(subject)
    role = user_role(user)
    return lower_role(token.role, role) if token is not None else role


def has_role(subject: Any, role: str) -> bool:
    return role_rank(effective_role(subject)) >= role_rank(check_role_name(role))


def require_role(subject: Any, role: str) -> None:
    """Raise Forbidden (403) unless the subject has at least `role`."""
    if not has_role(subject, role):
        have = effective_role(subject)
        who = "You are not signed in" if have is None else f"Your role is {have}"
        raise Forbidden(f"{who}; this needs the {role} role or higher.")


class _RolePermission(BasePermission):
    role: str = Role.VIEWER

    def has_permission(self, request: Request, view: Any) -> bool:
        if has_role(request, self.role):
            return True
        have = effective_role(request)
        self.message = f"Your role is {have}; this needs the {self.role} role or higher."
        return False


@cache
def HasRole(role: str) -> type[BasePermission]:
    """A DRF permission class (named like one because it returns one):
    `permission_classes = [HasRole("operator")]`."""
    check_role_name(role)
    return type(f"Has{role.capitalize()}Role", (_RolePermission,), {"role": role})


IsViewer = HasRole(Role.VIEWER)
IsOperator = HasRole(Role.OPERATOR)
IsApprover = HasRole(Role.APPROVER)
IsAdmin = HasRole(Role.ADMIN)


def role_permissions(role: str) -> list[BasePermission]:
    """For `get_permissions()`: the instances DRF checks."""
    return [HasRole(role)()]


# Route scope ------------------------------------------------------------------------


def routes_in_scope(subject: Any) -> list[str] | None:
    """The slugs a scoped token may see; None when the subject is not route-scoped."""
    token = token_of(subject)
    return list(token.route_slugs) if token is not None and token.is_scoped else None


def can_access_route(subject: Any, route: Any) -> bool:
    token = token_of(subject)
    return token is None or token.allows_route(route)


def ensure_route_access(subject: Any, route: Any, *, creating_slug: str | None = None) -> None:
    """404 when a scoped token reaches outside its routes (`route` a Route or a slug;
    `creating_slug` for a route about to be created)."""
    target = route if route is not None else creating_slug
    if target is not None and not can_access_route(subject, target):
        slug = getattr(target, "slug", target)
        raise NotFound(f"No route {slug!r} is visible to this token.")


def ensure_fleet_wide(subject: Any, action: str) -> None:
    """403 for a route-scoped token acting on what belongs to no route: workers, API
    tokens, bootstrap tokens. A token scoped to one route must not reach the fleet that
    every route's benchmarks run on (a scoped admin token revoking any worker)."""
    scope = routes_in_scope(subject)
    if scope is not None:
        raise Forbidden(
            f"This token is scoped to routes {', '.join(sorted(scope))}: it cannot {action}, which "
            "concerns every route. Use an unscoped token or a signed-in session."
        )


def visible_routes(subject: Any, routes: QuerySet[Any]) -> QuerySet[Any]:
    """Routes filtered to a scoped token's; unchanged otherwise."""
    return scope_queryset(subject, routes, "slug")


def scope_queryset(subject: Any, qs: QuerySet[Any], slug_field: str = "route__slug") -> QuerySet[Any]:
    """Any queryset filtered by a route-slug field to a scoped token's routes."""
    scope = routes_in_scope(subject)
    return qs if scope is None else qs.filter(**{f"{slug_field}__in": scope})
