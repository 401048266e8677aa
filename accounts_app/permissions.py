"""Who may do what: roles (viewer < operator < approver < admin) and route scope.

A subject is a request (DRF or Django), an `audit_app.actors.Actor`, or a user. With a
token, the effective role is the lower of the token's and its user's. Route scope is the
same rule: a user may be limited to some routes (UserRole.route_slugs, set by hand or by
single sign-on's group mapping), a token too (ApiToken.route_slugs), and a token's scope
is intersected with its user's, so a token never widens what its user sees. Outside the
scope every route answers 404, as if it did not exist, to sessions and tokens alike.
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
from accounts_app.selectors import user_role, user_route_slugs
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
    """The slugs the subject may see; None when it is not route-scoped. A token's scope
    within its user's: the intersection when both are scoped (possibly empty, when the
    user's scope shrank after the token was issued: then no route at all)."""
    user, token = _user_and_token(subject)
    mine = user_route_slugs(user)
    theirs = sorted(token.route_slugs) if token is not None and token.is_scoped else None
    if mine is None or theirs is None:
        return theirs if mine is None else mine
    return sorted(set(mine) & set(theirs))


def can_access_route(subject: Any, route: Any) -> bool:
    """`route` is a Route or a slug."""
    scope = routes_in_scope(subject)
    return scope is None or str(getattr(route, "slug", route)) in scope


def ensure_route_access(
    subject: Any, route: Any, *, creating_slug: str | None = None, missing: str | None = None
) -> None:
    """404 when a scoped subject reaches outside its routes (`route` a Route or a slug;
    `creating_slug` for a route about to be created). `missing` words the 404 when the
    caller named an object, not the route (a run): naming its route would tell it."""
    target = route if route is not None else creating_slug
    if target is not None and not can_access_route(subject, target):
        slug = getattr(target, "slug", target)
        raise NotFound(missing or f"No route {slug!r} is visible to you.")


def ensure_fleet_wide(subject: Any, action: str) -> None:
    """403 for a route-scoped subject (token or user) acting on what belongs to no route:
    workers, API tokens, bootstrap tokens. Someone limited to one route must not reach the
    fleet that every route's benchmarks run on (a scoped admin revoking any worker)."""
    scope = routes_in_scope(subject)
    if scope is not None:
        who, it = ("This token is", "it") if token_of(subject) is not None else ("You are", "you")
        raise Forbidden(
            f"{who} scoped to routes {', '.join(scope) or '(none)'}: {it} cannot {action}, which "
            "concerns every route. This needs an account and token not scoped to routes."
        )


def is_fleet_admin(subject: Any) -> bool:
    """An admin over every route: who may see and manage other users' tokens. An admin
    limited to some routes manages their own only (tokens belong to no route)."""
    return has_role(subject, Role.ADMIN) and routes_in_scope(subject) is None


def visible_routes(subject: Any, routes: QuerySet[Any]) -> QuerySet[Any]:
    """Routes filtered to a scoped subject's; unchanged otherwise."""
    return scope_queryset(subject, routes, "slug")


def scope_queryset(subject: Any, qs: QuerySet[Any], slug_field: str = "route__slug") -> QuerySet[Any]:
    """Any queryset filtered by a route-slug field to a scoped subject's routes."""
    scope = routes_in_scope(subject)
    return qs if scope is None else qs.filter(**{f"{slug_field}__in": scope})
