"""A release as `GET /api/v1/releases/{id}/` answers it, without DRF's field walk:
`ReleaseDetailSerializer` stays the schema (drf-spectacular reads it, and
`tests/releases/test_release_rows.py` holds this row equal to what it makes of the same
releases, key for key and in order), while the row is a dict made here
(`kernel.api.rows`). The serializer built its nested decision and timeline serializers'
fields on every request and resolved ~30 fields through DRF: most of the detail's CPU
once its reads were cut down (issue 26, point 1)."""

from __future__ import annotations

from typing import Any

from kernel.api.rows import drf_times
from releases_app.models import Release
from releases_app.selectors import release_decisions, release_timeline, release_waiting_for_endpoints


def release_detail_row(release: Release) -> dict[str, Any]:
    """Equal to `ReleaseDetailSerializer(release).data` (the same reads: decisions,
    timeline, waiting runs, and what a release on endpoints waits for)."""
    from benchmarks_app.selectors import runs_waiting_for_worker

    time = drf_times()
    baseline = release.baseline_version
    return {
        "id": release.pk,
        "route": str(release.route.slug),
        "state": release.state,
        "baseline_version": int(baseline.number) if baseline is not None else None,
        "candidate_version": int(release.candidate_version.number),
        "proposed_by": str(release.proposed_by.username),
        "created_at": time(release.created_at),
        "updated_at": time(release.updated_at),
        "gate_verdict": release.gate_verdict,
        "failure_reason": str(release.failure_reason),
        "endpoints": release.endpoints,
        "lock_version": int(release.lock_version),
        "etag": str(release.etag),
        "gate_result": release.gate_result,
        "diff": release.diff,
        "decisions": [
            {
                "kind": d.kind,
                "decided_by": str(d.actor_label),
                "reason": str(d.reason),
                "override": bool(d.override),
                "justification": str(d.justification),
                "created_at": time(d.created_at),
            }
            for d in release_decisions(release)
        ],
        "timeline": [
            {
                "id": e.id,
                "at": time(e.at),
                "actor": str(e.actor_label),
                "action": str(e.action),
                "before": e.before,
                "after": e.after,
                "reason": str(e.reason),
                "request_id": str(e.request_id),
            }
            for e in release_timeline(release).select_related(None)  # the label is shown, not the user
        ],
        # As the serializer's method gives them: the renderer writes `since`.
        "waiting_for_worker": [
            {"run": run.pk, "lane": run.lane, "reason": run.waiting_reason, "since": run.waiting_since}
            for run in runs_waiting_for_worker(release_id=release.pk).only(
                "id", "lane", "waiting_reason", "waiting_since"
            )
        ],
        "waiting_for_endpoints": release_waiting_for_endpoints(release),
    }
