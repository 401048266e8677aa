from __future__ import annotations

from typing import Any

from accounts_app.permissions import scope_queryset
from audit_app.models import AuditEvent, AuditEventQuerySet
from kernel.errors import NotFound
from live_app.expects import Expects
from releases_app.choices import ReleaseState
from releases_app.models import Decision, Release
from releases_app.models.releases import ReleaseQuerySet


def release_list(*, subject: Any) -> ReleaseQuerySet:
    """Newest first, limited to a scoped token's routes. The query's filters are
    `releases_app.filtersets.ReleaseFilterSet`."""
    qs = Release.objects.with_versions().order_by("-created_at", "-id")
    return scope_queryset(subject, qs)  # type: ignore[return-value]


def release_rows(*, subject: Any) -> ReleaseQuerySet:
    """`release_list` for the list page and endpoint: the columns a list shows."""
    return release_list(subject=subject).for_listing()


def release_get(*, subject: Any, release_id: int) -> Release:
    release = release_list(subject=subject).filter(pk=release_id).first()
    if release is None:
        raise NotFound(f"Release {release_id} not found.")
    return release


def release_decisions(release: Release) -> list[Decision]:
    return list(release.decisions.select_related("decided_by").order_by("created_at", "id"))


def release_timeline(release: Release) -> AuditEventQuerySet:
    """The release's audit events, oldest first (the timeline shows `actor_label`, a column)."""
    return AuditEvent.objects.for_object("release", release.pk).order_by("id")


def arm_expectation(arm: str, release: Release) -> Expects:
    """What an arm's endpoint must expect for the release's benchmark to start."""
    return Expects() if arm == "baseline" else Expects.of_release(release.pk)


def release_waiting_for_endpoints(release: Release) -> str | None:
    """What a release proposed with live endpoints waits for, in words (and why it was last
    refused); None once it is benchmarked, or for a release on launched engines."""
    if release.state != ReleaseState.PROPOSED or not release.endpoints:
        return None
    baseline, candidate = release.endpoints["baseline"], release.endpoints["candidate"]
    wants = arm_expectation("candidate", release)
    words = (
        f"its endpoints: {candidate} must expect {wants} (once the candidate is deployed "
        f"there, register it so, or PATCH its expects) and {baseline} the active version; then POST "
        f"/api/v1/releases/{release.pk}/benchmark probes both and starts the benchmark"
    )
    refused = (
        AuditEvent.objects.for_object("release", release.pk)
        .filter(action="release.benchmark_refused")
        .order_by("-id")
        .first()
    )
    return words + (f". Last refused: {refused.reason}" if refused else "")


# The releases whose candidate version was approved and not taken back: approved (not yet
# active), active, or superseded by a later one. A rolled-back version is not a standard.
APPROVED_STATES: tuple[str, ...] = (ReleaseState.APPROVED, ReleaseState.ACTIVE, ReleaseState.SUPERSEDED)


def approved_before(release: Release, *, versions: int) -> list[Release]:
    """`measurement.history`'s earlier versions: the route's last `versions` approved
    versions before `release` (by release, newest first; one release per version, its
    newest approved one), the release's own candidate version excluded."""
    qs = (
        Release.objects.filter(route_id=release.route_id, state__in=APPROVED_STATES, pk__lt=release.pk)
        .exclude(candidate_version_id=release.candidate_version_id)
        .select_related("candidate_version")
        .defer("gate_result", "diff", "candidate_version__document")
        .order_by("-pk")
    )
    out: list[Release] = []
    seen: set[int] = set()
    for earlier in qs.iterator(chunk_size=50):
        if earlier.candidate_version_id in seen:
            continue
        seen.add(earlier.candidate_version_id)
        out.append(earlier)
        if len(out) == versions:
            break
    return out
