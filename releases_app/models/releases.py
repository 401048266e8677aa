from __future__ import annotations

from django.conf import settings
from django.db import models

from releases_app.choices import OPEN_STATES, GateVerdict, ReleaseState


class ReleaseQuerySet(models.QuerySet["Release"]):
    def open(self) -> ReleaseQuerySet:
        return self.filter(state__in=OPEN_STATES)

    def with_versions(self) -> ReleaseQuerySet:
        return self.select_related("route", "baseline_version", "candidate_version", "proposed_by")

    def for_listing(self) -> ReleaseQuerySet:
        """For lists, which show neither the gate result, the diff nor the versions'
        documents: not read (decoding those JSON columns was most of a list page's CPU)."""
        return self.with_versions().defer(
            "gate_result", "diff", "baseline_version__document", "candidate_version__document"
        )


class Release(models.Model):
    """A proposal to move a route from its active version (baseline) to a candidate.
    State changes only through releases_app.services; `lock_version` grows with each one
    and is the ETag that If-Match compares."""

    route = models.ForeignKey("contracts_app.Route", on_delete=models.PROTECT, related_name="releases")
    baseline_version = models.ForeignKey(
        "contracts_app.ContractVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    candidate_version = models.ForeignKey(
        "contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="+"
    )
    state = models.CharField(max_length=20, choices=ReleaseState.choices, default=ReleaseState.PROPOSED)
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # NULL, not "": "no verdict yet" is part of the API (`"gate_verdict": null`).
    gate_verdict = models.CharField(  # noqa: DJ001
        max_length=10, choices=GateVerdict.choices, null=True, blank=True
    )
    gate_result = models.JSONField(null=True, blank=True)
    diff = models.JSONField(default=list, blank=True)
    failure_reason = models.TextField(blank=True)
    # The live endpoints the release is benchmarked against, by name ({"baseline": "prod-eu",
    # "candidate": "canary"}), or {} for engines the worker launches. Given at proposal, the
    # release waits in `proposed` until its candidate endpoint expects it (live_app).
    endpoints = models.JSONField(default=dict, blank=True)
    lock_version = models.PositiveIntegerField(default=1)

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["route"], condition=models.Q(state__in=OPEN_STATES), name="release_one_open_per_route"
            ),
            models.UniqueConstraint(
                fields=["route"], condition=models.Q(state="active"), name="release_one_active_per_route"
            ),
            # Target of the decisions' composite foreign key (release, proposer): a decision
            # row can only name the release's real proposer (migration 0002).
            models.UniqueConstraint(fields=["id", "proposed_by"], name="release_id_proposer_unique"),
            models.CheckConstraint(
                condition=models.Q(state__in=ReleaseState.values), name="release_state_known"
            ),
            models.CheckConstraint(
                condition=models.Q(gate_verdict__isnull=True) | models.Q(gate_verdict__in=GateVerdict.values),
                name="release_gate_verdict_known",
            ),
        ]
        indexes = [
            models.Index(fields=["state"], name="release_state_idx"),
            # The list order (newest first), overall and within a route, so a page is read
            # off the index instead of sorting every row with its gate result.
            models.Index(fields=["-created_at", "-id"], name="release_newest_first"),
            models.Index(fields=["route", "-created_at", "-id"], name="release_route_newest_first"),
            # A route's newest gated release (the overview's and the fleet's verdict and
            # speedup): the first entry, not every gated release's result read and sorted.
            models.Index(
                fields=["route", "-id"],
                condition=models.Q(gate_verdict__isnull=False),
                name="release_route_gated_newest",
            ),
        ]

    def __str__(self) -> str:
        return f"release #{self.pk}"

    @property
    def etag(self) -> str:
        return f'"release-{self.pk}-v{self.lock_version}"'

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES
