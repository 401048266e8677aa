from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts_app.models import ApiToken, TokenPurpose, UserRole
from accounts_app.models.tokens import hash_key, new_key
from accounts_app.roles import ROLE_ORDER, Role, role_rank
from accounts_app.selectors import user_role, user_route_slugs
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from contracts_app.document.schema import ROUTE_PATTERN
from kernel.errors import Conflict, DomainError, FieldError, Forbidden
from kernel.text import NAME_MAX, REASON_MAX, checked_text


@dataclass(frozen=True)
class IssuedToken:
    """The stored token and its key. The key exists only here: show it once."""

    token: ApiToken
    key: str


def _invalid(path: str, message: str) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=[FieldError(path, message)])


def _check_role(role: str, path: str = "role") -> None:
    if role not in ROLE_ORDER:
        raise _invalid(path, f"unknown role {role!r}; use one of {', '.join(ROLE_ORDER)}")


def token_summary(token: ApiToken) -> dict[str, Any]:
    """What the audit trail keeps about a token: never the key or its hash."""
    return {
        "prefix": token.prefix,
        "user": token.user.get_username(),
        "name": token.name,
        "role": token.role,
        "routes": list(token.route_slugs),
        "purpose": token.purpose,
        "expires_at": token.expires_at.isoformat() if token.expires_at else None,
        "revoked_at": token.revoked_at.isoformat() if token.revoked_at else None,
    }


def _may_manage_tokens_of(actor: Actor, user: Any) -> bool:
    from accounts_app.permissions import ensure_fleet_wide, is_fleet_admin

    if actor.token is not None:
        ensure_fleet_wide(actor, "manage tokens")  # a token belongs to no route
    if actor.user is None:  # the system: a management command run by someone with a shell
        return True
    # A user limited to some routes manages their own tokens (held within those routes by
    # token_issue), never another user's: that is an admin's over every route.
    return bool(actor.user.pk == user.pk or is_fleet_admin(actor))


def token_issue(
    *,
    user: Any,
    role: str,
    actor: Actor | Any,
    routes: Iterable[str] = (),
    name: str = "",
    expires_at: datetime | None = None,
    purpose: str = TokenPurpose.GENERAL,
) -> IssuedToken:
    """Issue a token for `user` with `role` (at most the user's own role), optionally
    scoped to route slugs. Non-admins issue tokens for themselves only. A rollout-gate
    token (`purpose`) must name its routes and has the viewer role. A user limited to
    some routes gets tokens within them only (naming them: "every route" would promise
    more than the token can see)."""
    who = as_actor(actor)
    if not _may_manage_tokens_of(who, user):
        raise Forbidden("Only an admin can issue tokens for another user.")
    _check_role(role)
    name = checked_text(name, field="name", max_length=NAME_MAX)
    have = user_role(user)
    if role_rank(role) > role_rank(have):
        raise _invalid("role", f"a token's role can't exceed its user's: {user.get_username()} is {have}")
    slugs = _checked_slugs(routes)
    _check_within_user_scope(user, slugs)
    if purpose not in TokenPurpose.values:
        raise _invalid("purpose", f"unknown purpose {purpose!r}; use one of {', '.join(TokenPurpose.values)}")
    if purpose == TokenPurpose.ROLLOUT_GATE:
        if not slugs:
            raise _invalid("routes", "a rollout-gate token must name the routes it gates")
        if role != Role.VIEWER:
            raise _invalid("role", "a rollout-gate token only reads: its role is viewer")
    if expires_at is not None and expires_at <= timezone.now():
        raise _invalid("expires_at", "the expiry must be in the future")

    prefix, key = new_key()
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            name=name,
            prefix=prefix,
            hashed_key=hash_key(key),
            role=role,
            route_slugs=slugs,
            purpose=purpose,
            expires_at=expires_at,
            created_by=who.user,
        )
        audit_record(
            actor=who,
            action="token.issued",
            obj_type="token",
            obj_id=token.prefix,
            after=token_summary(token),
        )
    return IssuedToken(token=token, key=key)


def _check_within_user_scope(user: Any, slugs: list[str]) -> None:
    scope = user_route_slugs(user)
    if scope is None:
        return
    limited = f"{user.get_username()} is limited to routes {', '.join(scope)}"
    if not slugs:
        raise _invalid("routes", f"{limited}: name the token's routes, within those")
    outside = [slug for slug in slugs if slug not in scope]
    if outside:
        raise _invalid("routes", f"{limited}; not {', '.join(outside)}")


def token_revoke(*, token: ApiToken, actor: Actor | Any, reason: str = "") -> ApiToken:
    who = as_actor(actor)
    if not _may_manage_tokens_of(who, token.user):
        raise Forbidden("Only an admin can revoke another user's token.")
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    with transaction.atomic():
        before = token_summary(token)
        now = timezone.now()
        # Conditional: of two concurrent revocations one wins, the other gets 409.
        if not ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now):
            raise Conflict(f"Token {token.prefix} is already revoked.", code="token_revoked")
        token.revoked_at = now
        audit_record(
            actor=who,
            action="token.revoked",
            obj_type="token",
            obj_id=token.prefix,
            before=before,
            after=token_summary(token),
            reason=reason,
        )
    return token


def user_create(*, username: str, role: str, actor: Actor | Any) -> Any:
    """A user for scripts and pipelines: no usable password (they authenticate with tokens)."""
    _check_role(role)
    user_model = get_user_model()
    with transaction.atomic():
        if user_model.objects.filter(username=username).exists():
            raise Conflict(f"A user named {username!r} already exists.", code="user_exists")
        user = user_model(username=username)
        user.set_unusable_password()
        user.full_clean(exclude=["password"])
        user.save()
        UserRole.objects.create(user=user, role=role)
        audit_record(
            actor=actor,
            action="user.created",
            obj_type="user",
            obj_id=username,
            after={"username": username, "role": role},
        )
    return user


def user_set_role(*, user: Any, role: str, actor: Actor | Any) -> UserRole:
    _check_role(role)
    with transaction.atomic():
        before = user_role(user)
        row, _ = UserRole.objects.update_or_create(user=user, defaults={"role": role})
        audit_record(
            actor=actor,
            action="user.role_changed",
            obj_type="user",
            obj_id=user.get_username(),
            before={"role": before},
            after={"role": role},
        )
    return row


def _checked_slugs(routes: Iterable[str], path: str = "routes") -> list[str]:
    slugs = sorted(set(routes))
    for slug in slugs:
        if not isinstance(slug, str) or not re.fullmatch(ROUTE_PATTERN, slug):
            raise _invalid(path, f"{slug!r} is not a route slug")
    return slugs


def user_set_routes(*, user: Any, routes: Iterable[str], actor: Actor | Any) -> UserRole:
    """Limit `user` to these routes (empty: every route). Audited as `user.routes_changed`
    when the scope moves. Their tokens are not edited: a token's scope is intersected with
    its user's at every request (accounts_app/permissions.py), so narrowing a user narrows
    their tokens at once."""
    slugs = _checked_slugs(routes)
    with transaction.atomic():
        row, _ = UserRole.objects.select_for_update().get_or_create(
            user=user, defaults={"role": user_role(user) or Role.VIEWER}
        )
        before = sorted(row.route_slugs or [])
        if before != slugs:
            row.route_slugs = slugs
            row.save(update_fields=["route_slugs"])
            audit_record(
                actor=actor,
                action="user.routes_changed",
                obj_type="user",
                obj_id=user.get_username(),
                before={"routes": before},
                after={"routes": slugs},
            )
    # The cached one-to-one on `user` would still hold the old scope for this request.
    user.specpact_role = row
    return row


def sso_sign_in(
    *, username: str, email: str, groups: list[str], role: str, issuer: str, routes: Iterable[str] = ()
) -> Any:
    """The user an OpenID Connect sign-in stands for, created on the first one, with `role`
    and `routes` (from accounts_app/sso_mapping.py; empty: every route) set again each
    time, so a user taken out of a group loses its role and routes here. Audited:
    `user.created` (first time), `user.role_changed` and `user.routes_changed` (when they
    move), `login.sso` (every sign-in, with the groups it came with)."""
    _check_role(role)
    slugs = _checked_slugs(routes)
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.select_for_update().filter(username=username).first()
        created = user is None
        if user is None:
            user = user_model(username=username, email=email)
            user.set_unusable_password()  # a provider's user never signs in with a password here
            user.full_clean(exclude=["password"])
            user.save()
            UserRole.objects.create(user=user, role=role, route_slugs=slugs)
            audit_record(
                actor=user,
                action="user.created",
                obj_type="user",
                obj_id=username,
                after={
                    "username": username,
                    "role": role,
                    "routes": slugs,
                    "source": "oidc",
                    "issuer": issuer,
                },
            )
        else:
            if not user.is_active:
                # Deactivated here: the provider can't bring them back (nor is it a sign-in).
                raise Forbidden(f"{username!r} is deactivated in SpecPact.")
            if user.has_usable_password():
                # A local account of that name: a provider's user must not take it over.
                raise Conflict(
                    f"{username!r} is a local account; it can't be signed into through the provider.",
                    code="user_exists",
                )
            if email and user.email != email:
                user.email = email
                user.save(update_fields=["email"])
            if user_role(user) != role:
                user_set_role(user=user, role=role, actor=user)
            user_set_routes(user=user, routes=slugs, actor=user)  # audited only when they move
        audit_record(
            actor=user,
            action="login.sso",
            obj_type="user",
            obj_id=username,
            after={
                "issuer": issuer,
                "groups": sorted(groups),
                "role": role,
                "routes": slugs,
                "created": created,
            },
        )
    return user
