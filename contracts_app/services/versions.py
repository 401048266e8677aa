"""Writes for routes and contract versions. A version is stored only once it has passed
every schema and engine rule; the same document (same digest) is the same version."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from accounts_app.permissions import ensure_route_access
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from contracts_app.document import (
    ContractError,
    diff_documents,
    document_digest,
    normalize,
    rollback_target_of,
    validate_document,
)
from contracts_app.document.datasets import is_workload_dataset
from contracts_app.models import ContractVersion, Route
from contracts_app.models.routes import ROUTE_SLUG_VALIDATOR
from kernel.errors import Conflict, DomainError, FieldError
from kernel.text import DESCRIPTION_MAX, checked_text
from workloads_app import references as workload_references


@dataclass(frozen=True)
class VersionUpload:
    version: ContractVersion
    created: bool
    diff_from_active: list[dict[str, Any]]


def _audit_route_created(route: Route, actor: Actor) -> None:
    audit_record(
        actor=actor,
        action="route.created",
        obj_type="route",
        obj_id=route.slug,
        route=route,
        after={"slug": route.slug, "description": route.description},
    )


def route_create(*, slug: str, description: str = "", actor: Any) -> Route:
    """`actor`: an audit Actor, a user, or None for the system. A route-scoped token
    creates only routes in its scope (404 otherwise, as for a version upload)."""
    ensure_route_access(as_actor(actor), None, creating_slug=slug)
    if not re.fullmatch(ROUTE_SLUG_VALIDATOR.regex, slug):
        raise DomainError(
            "The route slug is invalid.",
            errors=[FieldError("slug", str(ROUTE_SLUG_VALIDATOR.message))],
        )
    description = checked_text(description, field="description", max_length=DESCRIPTION_MAX)
    try:
        with transaction.atomic():
            route = Route.objects.create(slug=slug, description=description)
            _audit_route_created(route, as_actor(actor))
    except IntegrityError:
        raise Conflict(f"A route named {slug!r} already exists.", code="route_exists") from None
    return route


def _check_rollback_target(document: dict[str, Any], next_number: int, existing: set[int]) -> None:
    target = rollback_target_of(document)
    if target.kind == "version" and target.number not in existing:
        known = ", ".join(str(n) for n in sorted(existing)) or "none yet"
        raise ContractError(
            "The contract is invalid; see errors.",
            errors=[
                FieldError(
                    "rollback.to",
                    f"rollback target {target} does not exist on this route "
                    f"(this upload would be version {next_number}; stored versions: {known})",
                )
            ],
        )


def _resolve_workloads(document: dict[str, Any], who: Actor) -> dict[str, Any]:
    """lane → the registered workload a `workload:NAME@sha256:…` dataset names, checked like
    `rollback.to: version:N`: it must exist, be visible to the uploader and keep its
    content (a ContractError naming the field otherwise)."""
    lanes = [
        lane
        for lane, w in ((document.get("measurement") or {}).get("workloads") or {}).items()
        if is_workload_dataset(str(w.get("dataset", "")))
    ]
    if not lanes:
        return {}
    return workload_references.resolve(document=document, actor=who)


def contract_version_create(
    *,
    slug: str,
    document: Any,
    source_format: str,
    actor: Any,
) -> VersionUpload:
    """Validate `document` and store it as the route's next version.

    The first upload for an unknown slug creates the route (the document's `route` must
    equal the slug). Uploading a document whose digest the route already has returns that
    version with `created=False`: uploads are idempotent by content.
    """
    contract = validate_document(document)
    if contract.route != slug:
        raise ContractError(
            "The contract is invalid; see errors.",
            errors=[
                FieldError(
                    "route", f"the document is for route {contract.route!r} but was uploaded to {slug!r}"
                )
            ],
        )
    stored = normalize(contract)
    digest = document_digest(contract)
    who = as_actor(actor)
    # A scoped token uploads (and so creates routes) only within its scope.
    ensure_route_access(who, slug)

    with transaction.atomic():
        route, route_created = _route_locked(slug, description=contract.description or "")
        existing = ContractVersion.objects.filter(route=route, digest=digest).first()
        if existing is not None:
            return VersionUpload(existing, False, _diff_from_active(route, existing.document))

        numbers = set(route.versions.values_list("number", flat=True))
        next_number = max(numbers, default=0) + 1
        _check_rollback_target(stored, next_number, numbers)
        workloads = _resolve_workloads(stored, who)
        version = ContractVersion.objects.create(
            route=route,
            number=next_number,
            digest=digest,
            document=stored,
            source_format=source_format,
            created_by=who.user,
        )
        if workloads:
            workload_references.record_uses(contract_version=version, resolved=workloads)
        diff = _diff_from_active(route, stored)
        if route_created:
            _audit_route_created(route, who)
        audit_record(
            actor=who,
            action="contract.uploaded",
            obj_type="contract_version",
            obj_id=f"{route.slug}:v{version.number}",
            route=route,
            after={"version": version.number, "digest": digest, "method": version.speculation_method},
        )
    return VersionUpload(version, True, diff)


def _route_locked(slug: str, *, description: str) -> tuple[Route, bool]:
    """The route row, locked for this transaction so that version numbers are handed out
    one at a time; created on first upload."""
    route = Route.objects.select_for_update().filter(slug=slug).first()
    if route is not None:
        return route, False
    try:
        with transaction.atomic():
            Route.objects.create(slug=slug, description=description)
        created = True
    except IntegrityError:
        created = False  # a concurrent first upload created it
    return Route.objects.select_for_update().get(slug=slug), created


def _diff_from_active(route: Route, document: dict[str, Any]) -> list[dict[str, Any]]:
    if route.active_version_id is None:
        return []
    active = ContractVersion.objects.get(pk=route.active_version_id)
    return [change.as_dict() for change in diff_documents(active.document, document)]
