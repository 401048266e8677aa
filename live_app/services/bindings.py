"""A route's secret bindings: created, changed and deleted by admins (route-scoped admin
tokens only on their routes), each change audited. A binding says where a secret is read
(an environment variable or a file, within the control plane's fences) and the hosts it may
be sent to; the secret itself is never written anywhere (live_app/secrets.py)."""

from __future__ import annotations

import re
from typing import Any

from django.db import IntegrityError, transaction

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from contracts_app.models import Route
from kernel.errors import Conflict, DomainError, FieldError, NotFound
from live_app.models import ENDPOINT_NAME_PATTERN, SecretBinding
from live_app.secrets import check_hosts, check_reference

_UNSET: Any = object()


def binding_snapshot(binding: SecretBinding) -> dict[str, Any]:
    """What the audit trail keeps: where it reads from and the hosts, never the secret."""
    return {
        "name": binding.name,
        "kind": binding.kind,
        "reference": binding.reference,
        "hosts": binding.hosts,
    }


def binding_create(
    *, route: Route, name: Any, kind: Any, reference: Any, hosts: Any, actor: Actor | Any
) -> SecretBinding:
    who = as_actor(actor)
    require_role(who, "admin")
    ensure_route_access(who, route)
    if not isinstance(name, str) or not re.match(ENDPOINT_NAME_PATTERN, name):
        raise DomainError(
            "The request is invalid; see errors.",
            errors=[FieldError("name", "1-40 lowercase letters, digits and inner hyphens, e.g. prod-key")],
        )
    checked = check_reference(kind, reference)
    bound_hosts = check_hosts(hosts)
    with transaction.atomic():
        try:
            with transaction.atomic():
                binding = SecretBinding.objects.create(
                    route=route,
                    name=name,
                    kind=kind,
                    reference=checked,
                    hosts=bound_hosts,
                    created_by=who.user,
                )
        except IntegrityError:
            raise Conflict(
                f"{route.slug!r} already has a secret binding {name!r}.", code="secret_binding_exists"
            ) from None
        audit_record(
            actor=who,
            action="secret_binding.created",
            obj_type="secret_binding",
            obj_id=binding.pk,
            route=route,
            after=binding_snapshot(binding),
        )
    return binding


def binding_update(
    *,
    binding: SecretBinding,
    actor: Actor | Any,
    kind: Any = _UNSET,
    reference: Any = _UNSET,
    hosts: Any = _UNSET,
) -> SecretBinding:
    """Change where it reads from or the hosts. Endpoints keep the binding; a probe or run
    to a host no longer named gets no secret (live_app.secrets.auth_headers)."""
    who = as_actor(actor)
    require_role(who, "admin")
    ensure_route_access(who, binding.route)
    new_kind = binding.kind if kind is _UNSET else kind
    changes: dict[str, Any] = {}
    if kind is not _UNSET or reference is not _UNSET:
        changes["kind"] = new_kind
        changes["reference"] = check_reference(
            new_kind, binding.reference if reference is _UNSET else reference
        )
    if hosts is not _UNSET:
        changes["hosts"] = check_hosts(hosts)
    with transaction.atomic():
        locked = (
            SecretBinding.objects.select_for_update().select_related("route").filter(pk=binding.pk).first()
        )
        if locked is None:
            raise NotFound(f"The secret binding {binding.name!r} was deleted.")
        before = binding_snapshot(locked)
        changed = {k: v for k, v in changes.items() if getattr(locked, k) != v}
        if not changed:
            return locked
        for key, value in changed.items():
            setattr(locked, key, value)
        locked.save(update_fields=[*changed, "updated_at"])
        audit_record(
            actor=who,
            action="secret_binding.updated",
            obj_type="secret_binding",
            obj_id=locked.pk,
            route=locked.route,
            before=before,
            after=binding_snapshot(locked),
        )
    return locked


def binding_delete(*, binding: SecretBinding, actor: Actor | Any, reason: str = "") -> None:
    """409 while an endpoint sends it: re-bind or clear those endpoints' auth first, so a
    deletion never leaves an endpoint failing its auth unannounced."""
    who = as_actor(actor)
    require_role(who, "admin")
    ensure_route_access(who, binding.route)
    with transaction.atomic():
        locked = (
            SecretBinding.objects.select_for_update().select_related("route").filter(pk=binding.pk).first()
        )
        if locked is None:
            raise NotFound(f"The secret binding {binding.name!r} was deleted.")
        users = sorted(locked.endpoints.values_list("name", flat=True))
        if users:
            raise Conflict(
                f"The secret binding {locked.name!r} is the auth of {', '.join(users)}: "
                "give them other auth (or null) first.",
                code="secret_binding_in_use",
            )
        before, pk = binding_snapshot(locked), locked.pk
        locked.delete()
        audit_record(
            actor=who,
            action="secret_binding.deleted",
            obj_type="secret_binding",
            obj_id=pk,
            route=locked.route,
            before=before,
            reason=reason,
        )
