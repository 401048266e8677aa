from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from rest_framework import serializers

from audit_app.models import AuditEvent
from kernel.text import JUSTIFICATION_MAX, REASON_MAX
from releases_app.choices import MIN_JUSTIFICATION_LENGTH
from releases_app.models import Decision, Release
from releases_app.selectors import release_waiting_for_endpoints


class WaitingRun(TypedDict):
    run: int
    lane: str
    reason: str
    since: datetime | None


class ReleaseCreateSerializer(serializers.Serializer[Any]):
    route = serializers.SlugField(max_length=64)
    candidate_version = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=REASON_MAX)
    endpoints = serializers.DictField(
        child=serializers.CharField(max_length=40),
        required=False,
        help_text='benchmark on live endpoints: {"baseline": "prod-eu", "candidate": "canary"}. The '
        "release then waits in `proposed` until the candidate endpoint expects it "
        "(`release:<id>`) and POST releases/{id}/benchmark starts it",
    )


class DecisionInputSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=REASON_MAX, trim_whitespace=True)


class ApproveInputSerializer(DecisionInputSerializer):
    override = serializers.BooleanField(required=False, default=False)
    justification = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=JUSTIFICATION_MAX,
        help_text=f"Required with override: at least {MIN_JUSTIFICATION_LENGTH} characters.",
    )


class ReleaseSerializer(serializers.ModelSerializer[Release]):
    route = serializers.CharField(source="route.slug")
    baseline_version = serializers.IntegerField(
        source="baseline_version.number", allow_null=True, default=None
    )
    candidate_version = serializers.IntegerField(source="candidate_version.number")
    proposed_by = serializers.CharField(source="proposed_by.username")
    etag = serializers.CharField()

    class Meta:
        model = Release
        fields = [
            "id",
            "route",
            "state",
            "baseline_version",
            "candidate_version",
            "proposed_by",
            "created_at",
            "updated_at",
            "gate_verdict",
            "failure_reason",
            "endpoints",
            "lock_version",
            "etag",
        ]


class DecisionSerializer(serializers.ModelSerializer[Decision]):
    decided_by = serializers.CharField(source="actor_label")

    class Meta:
        model = Decision
        fields = ["kind", "decided_by", "reason", "override", "justification", "created_at"]


class TimelineEventSerializer(serializers.ModelSerializer[AuditEvent]):
    actor = serializers.CharField(source="actor_label")

    class Meta:
        model = AuditEvent
        fields = ["id", "at", "actor", "action", "before", "after", "reason", "request_id"]


class ReleaseDetailSerializer(ReleaseSerializer):
    diff = serializers.JSONField()
    gate_result = serializers.JSONField()
    decisions = serializers.SerializerMethodField()
    timeline = serializers.SerializerMethodField()
    waiting_for_endpoints = serializers.SerializerMethodField(
        help_text="a release proposed with endpoints, not yet benchmarked: what it waits for, in words; "
        "null otherwise"
    )
    waiting_for_worker = serializers.SerializerMethodField(
        help_text="the release's queued runs that no online worker can serve, each with the reason "
        "(which engine, which pool, why each worker doesn't fit) and since when; empty when none"
    )

    class Meta(ReleaseSerializer.Meta):
        fields = [
            *ReleaseSerializer.Meta.fields,
            "gate_result",
            "diff",
            "decisions",
            "timeline",
            "waiting_for_worker",
            "waiting_for_endpoints",
        ]

    def get_waiting_for_endpoints(self, release: Release) -> str | None:
        return release_waiting_for_endpoints(release)

    def get_waiting_for_worker(self, release: Release) -> list[WaitingRun]:
        from benchmarks_app.selectors import runs_waiting_for_worker

        return [
            {"run": run.pk, "lane": run.lane, "reason": run.waiting_reason, "since": run.waiting_since}
            for run in runs_waiting_for_worker(release_id=release.pk).only(
                "id", "lane", "waiting_reason", "waiting_since"
            )
        ]

    def get_decisions(self, release: Release) -> list[dict[str, Any]]:
        from releases_app.selectors import release_decisions

        return list(DecisionSerializer(release_decisions(release), many=True).data)

    def get_timeline(self, release: Release) -> list[dict[str, Any]]:
        from releases_app.selectors import release_timeline

        # The events' own actor label is shown, not their user.
        return list(TimelineEventSerializer(release_timeline(release).select_related(None), many=True).data)


class ReleaseBenchmarkIn(serializers.Serializer[Any]):
    """Both optional: the endpoints named at proposal are used, or these replace them."""

    baseline = serializers.CharField(max_length=40, required=False, help_text="serves the active version")
    candidate = serializers.CharField(max_length=40, required=False, help_text="expects release:<id>")
