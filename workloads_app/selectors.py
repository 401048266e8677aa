"""Reads for workloads, every one through who may see what.

Who sees a workload version (docs/workloads.md, "Privacy"):
- anyone who may see a route that uses it: a contract version of that route names it
  (any version, not only the active one). Every signed-in role sees every route; a
  route-scoped token only its routes;
- whoever uploaded it (the same content again counts: they hold it), whatever uses it;
- admins (not through a route-scoped token, which stays inside its routes).
Anyone else gets 404, as if it did not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts_app.permissions import effective_role, routes_in_scope
from accounts_app.roles import Role
from audit_app.models import AuditEvent
from kernel.errors import NotFound
from workloads_app.models import WorkloadContent, WorkloadUploader, WorkloadUse, WorkloadVersion

DIGEST_PREFIX = "sha256:"


def _user(subject: Any) -> Any:
    user = getattr(subject, "user", subject)
    return user if getattr(user, "is_authenticated", False) else None


def with_content_flag(qs: QuerySet[WorkloadVersion]) -> QuerySet[WorkloadVersion]:
    return qs.annotate(has_content=Exists(WorkloadContent.objects.filter(version=OuterRef("pk"))))


def workloads_visible_to(subject: Any) -> QuerySet[WorkloadVersion]:
    role = effective_role(subject)
    qs = with_content_flag(WorkloadVersion.objects.select_related("created_by"))
    if role is None:
        return qs.none()
    scope = routes_in_scope(subject)
    if scope is None and role == Role.ADMIN:
        return qs
    uses = WorkloadUse.objects.filter(workload=OuterRef("pk"))
    if scope is not None:
        uses = uses.filter(contract_version__route__slug__in=scope)
    visible = Q(Exists(uses))
    user = _user(subject)
    if user is not None:
        visible |= Q(Exists(WorkloadUploader.objects.filter(workload=OuterRef("pk"), user=user)))
    return qs.filter(visible)


def split_ref(key: str) -> tuple[str, str | None]:
    """`name` or `name@sha256:<hex>` (how the API and contracts address a version)."""
    name, sep, digest = key.partition("@")
    return name, (digest if sep else None)


def workload_get(subject: Any, name: str, digest: str) -> WorkloadVersion:
    version = workloads_visible_to(subject).filter(name=name, digest=digest).first()
    if version is None:
        raise NotFound(f"No workload {name}@{digest} is visible to you.")
    return version


def workload_versions(subject: Any, name: str) -> list[WorkloadVersion]:
    """The versions of `name` the subject may see, newest first (404 when none)."""
    versions = list(workloads_visible_to(subject).filter(name=name).order_by("-created_at", "-id"))
    if not versions:
        raise NotFound(f"No workload named {name!r} is visible to you.")
    return versions


def workload_by_ref(name: str, digest: str) -> WorkloadVersion | None:
    """For the system (spec building, a worker's download), whoever asks."""
    return with_content_flag(WorkloadVersion.objects.filter(name=name, digest=digest)).first()


def workload_content(version: WorkloadVersion) -> bytes | None:
    row = WorkloadContent.objects.filter(version=version).values_list("data", flat=True).first()
    return bytes(row) if row is not None else None


@dataclass(frozen=True)
class Use:
    route: str
    version: int
    lane: str
    active: bool


def workload_uses(version: WorkloadVersion, subject: Any = None) -> list[Use]:
    """The contract versions naming this workload, on routes the subject may see (all of
    them for the system, `subject=None`)."""
    rows = (
        WorkloadUse.objects.filter(workload=version)
        .select_related("contract_version__route")
        .order_by("contract_version__route__slug", "contract_version__number", "lane")
    )
    scope = routes_in_scope(subject) if subject is not None else None
    if scope is not None:
        rows = rows.filter(contract_version__route__slug__in=scope)
    return [
        Use(
            route=u.contract_version.route.slug,
            version=u.contract_version.number,
            lane=u.lane,
            active=u.contract_version.route.active_version_id == u.contract_version_id,
        )
        for u in rows
    ]


def workload_tombstone(version: WorkloadVersion) -> AuditEvent | None:
    """The audit event of this version's deletion, if its content was deleted."""
    return (
        AuditEvent.objects.for_object("workload", version.pk)
        .filter(action="workload.deleted")
        .order_by("-id")
        .first()
    )
