"""An advice run: candidates measured per lane of a route until the advisor stops, its
recommendation per lane, and the draft version (and release) it was handed over as.

The advisor's state is `records` alone (strategy/advisor.py replays them): a run resumed
after a worker loss rebuilds the advisor from them and gets the same next batch. Each
measured batch is an ordinary benchmark Run (`Run.advice`); `dispatched` says which
candidate and levels each of those runs measures and whether its result was recorded,
so a redelivered result is never recorded twice."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from advice_app.choices import FINAL_STATES, AdviceState


class AdviceRunQuerySet(models.QuerySet["AdviceRun"]):
    def for_listing(self) -> AdviceRunQuerySet:
        """For lists: without the records (every sample measured; large)."""
        return self.select_related("route", "based_on", "draft_version", "release", "created_by").defer(
            "records", "based_on__document", "draft_version__document"
        )


class AdviceRun(models.Model):
    route = models.ForeignKey("contracts_app.Route", on_delete=models.PROTECT, related_name="advice_runs")
    # The route's active version when the advice was asked: both arms are built from it.
    based_on = models.ForeignKey("contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="+")
    # Snapshotted from `based_on` (target.engine, target.engine_version): a later engine
    # change makes the advice stale, which the page says.
    engine = models.CharField(max_length=32)
    engine_release = models.CharField(max_length=64, blank=True)
    lanes = models.JSONField(default=list)
    # [{name, method, tokens, assets, memory_gib, schedulable, params}] (serialize.py).
    candidates = models.JSONField(default=list)
    # Requests per lane, both arms together.
    budget = models.PositiveIntegerField()
    # Optionally also a cap on worker time, all lanes together: the minutes its runs held a
    # worker (started to finished; a worker serves one run at a time, so on a GPU pool these
    # are GPU-minutes). Checked between rounds: a round under way is measured to its end.
    budget_gpu_minutes = models.FloatField(null=True, blank=True)
    seed = models.BigIntegerField(default=0)
    # The advisor's settings beyond the defaults ({"looks", "n_start", "n_boot"}): kept, so
    # that the advisor rebuilt from the records is the same one.
    options = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=16, choices=AdviceState.choices, default=AdviceState.QUEUED)
    # {lane: [record dict, …]} in the order recorded (serialize.record_to_dict).
    records = models.JSONField(default=dict, blank=True)
    # {lane: recommendation dict} (serialize.recommendation_to_dict), once a lane is done.
    recommendations = models.JSONField(default=dict, blank=True)
    # {run id: {lane, candidate, levels, n, round, retry, status}}: status is pending,
    # recorded or lost (the run failed, timed out or was cancelled: what its round still
    # lacks is dispatched again once, as a retry).
    dispatched = models.JSONField(default=dict, blank=True)
    draft_version = models.ForeignKey(
        "contracts_app.ContractVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    release = models.ForeignKey(
        "releases_app.Release", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    last_error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = AdviceRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["route", "-created_at", "-id"], name="advice_route_newest_first")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=AdviceState.values), name="advice_state_known"
            ),
            models.CheckConstraint(condition=models.Q(budget__gt=0), name="advice_budget_positive"),
            models.CheckConstraint(
                condition=models.Q(budget_gpu_minutes__isnull=True) | models.Q(budget_gpu_minutes__gt=0),
                name="advice_gpu_minutes_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"advice {self.pk} ({self.route_id}, {self.state})"

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES
