from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from benchmarks_app.choices import FINISHED_STATES, EngineKind, RunPhase, RunState
from benchmarks_app.progress import Step, current_step


class RunQuerySet(models.QuerySet["Run"]):
    def with_relations(self) -> RunQuerySet:
        """For one run: its result loaded too (the result and CSV endpoints read it)."""
        return self.for_listing().select_related("result")

    def for_listing(self) -> RunQuerySet:
        """For lists: whether a result exists without reading it (a result's payload is
        ~190 KB and its aggregates ~30 KB at issue 16's scale), and the versions without
        their documents (a list shows only their numbers)."""
        results = RunResult.objects.filter(run_id=models.OuterRef("pk"))
        return (
            self.select_related("route", "baseline_version", "candidate_version", "worker", "target_worker")
            .defer("baseline_version__document", "candidate_version__document")
            .annotate(result_exists=models.Exists(results))
        )

    def active(self) -> RunQuerySet:
        return self.filter(state__in=[RunState.QUEUED, RunState.RUNNING])


class Run(models.Model):
    """One benchmark: baseline and candidate of a route, on one worker, one lane,
    interleaved over the lane's load levels. `attempt` grows when the run is requeued
    after its worker went silent; results are keyed by (run, attempt)."""

    route = models.ForeignKey("contracts_app.Route", on_delete=models.PROTECT, related_name="runs")
    release = models.ForeignKey(
        "releases_app.Release", null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    # Set when the run measures a batch of an advice run (advice_app): its result is
    # recorded into the advice's records when it lands.
    advice = models.ForeignKey(
        "advice_app.AdviceRun", null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    lane = models.CharField(max_length=64)
    baseline_version = models.ForeignKey(
        "contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="+"
    )
    candidate_version = models.ForeignKey(
        "contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="+"
    )
    engine_kind = models.CharField(max_length=16, choices=EngineKind.choices)
    # Per arm, a variant of that arm's version document the arm runs instead (an advice
    # run's candidate arm: the active version with a candidate's speculation); null: the
    # versions' own documents. Kept on the run so a requeued attempt runs the same.
    arm_documents = models.JSONField(null=True, blank=True)
    # Only for the `openai` engine: {"baseline": {"base_url", "model"}, "candidate": {…}}.
    endpoints = models.JSONField(null=True, blank=True)
    target_worker = models.ForeignKey(
        "benchmarks_app.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    queue = models.CharField(max_length=100)
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.QUEUED)
    attempt = models.PositiveIntegerField(default=1)
    worker = models.ForeignKey(
        "benchmarks_app.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    # The run specification as dispatched for the current attempt (worker/spec.py).
    spec = models.JSONField(default=dict)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    # Set while no online worker can serve the run (which engine, which pool, why each
    # worker doesn't fit); cleared when one can or when a worker claims it. Since when it
    # has waited so: the sweep fails it after RUN_WORKER_WAIT_MAX_S.
    waiting_reason = models.TextField(blank=True)
    waiting_since = models.DateTimeField(null=True, blank=True)
    # The worker's last reported phase of the current attempt (`RunPhase`) and since when.
    phase = models.CharField(max_length=32, blank=True, choices=RunPhase.choices)
    phase_since = models.DateTimeField(null=True, blank=True)
    # The current attempt's steps (one level, or block of a level, of one arm each) in the
    # order the worker runs them, and when each began: {"order", "began"}; the step's own elapsed
    # time and the estimate of what is left come from it (benchmarks_app/progress.py).
    progress_steps = models.JSONField(default=dict, blank=True)
    # What happened to each attempt, in words, oldest first: [{"at", "attempt", "event", "detail"}].
    history = models.JSONField(default=list)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["state", "worker"], name="run_state_worker"),
            # The list order, so a page reads its rows off the index instead of sorting every
            # (wide) row; and the same within a route (`?route=`). A release's runs are few,
            # found by the foreign key's own index.
            models.Index(fields=["-created_at", "-id"], name="run_newest_first"),
            models.Index(fields=["route", "-created_at", "-id"], name="run_route_newest_first"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=[s.value for s in RunState]), name="run_state_known"
            ),
            models.CheckConstraint(condition=models.Q(attempt__gte=1), name="run_attempt_positive"),
            models.CheckConstraint(
                condition=models.Q(progress_done__lte=models.F("progress_total")),
                name="run_progress_within_total",
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.route_id}/{self.lane}, {self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in FINISHED_STATES

    @property
    def progress_percent(self) -> int:
        if not self.progress_total:
            return 0
        return round(100 * self.progress_done / self.progress_total)

    @property
    def phase_words(self) -> str:
        """While running: what it is doing and for how long, e.g. "the engine is starting
        and loading its model (42 s)"."""
        if self.state != RunState.RUNNING or not self.phase or self.phase_since is None:
            return ""
        elapsed = int((timezone.now() - self.phase_since).total_seconds())
        return (
            f"{self.get_phase_display()} ({elapsed // 60} min {elapsed % 60} s)"
            if elapsed >= 60
            else (f"{self.get_phase_display()} ({elapsed} s)")
        )

    @property
    def step(self) -> Step | None:
        """While running: which level of which arm, for how long, and about how long left."""
        if self.state != RunState.RUNNING:
            return None
        return current_step(self.progress_steps, self.progress_done, timezone.now())

    @property
    def progress_words(self) -> str:
        """What the page says under a running run's state: the worker's phase when it isn't
        plain benchmarking (the engine starting takes minutes), then the step with its own
        clock and the estimate."""
        step = self.step
        phase = self.phase_words if self.phase and self.phase != RunPhase.BENCHMARKING else ""
        if step is None:
            return self.phase_words
        return f"{phase}; {step.words}" if phase else step.words

    @property
    def engine_label(self) -> str:
        """The engine in words: for a managed run, the server the worker will launch."""
        engine = ((self.spec.get("arms") or {}).get("candidate") or {}).get("engine") or {}
        if self.engine_kind == EngineKind.MANAGED:
            return f"{engine.get('server') or 'a server'} launched by the worker from the rendered command"
        if self.engine_kind == EngineKind.OPENAI:
            return f"given OpenAI-compatible endpoints ({engine.get('base_url', 'see the spec')})"
        return "Transformers, in-process on the worker"

    def note(self, event: str, detail: str = "") -> None:
        """Append to the history; the caller saves."""
        entry: dict[str, Any] = {
            "at": timezone.now().isoformat(),
            "attempt": self.attempt,
            "event": event,
            "detail": detail,
        }
        self.history = [*self.history, entry]


class RunResult(models.Model):
    """The one accepted result of a run. One row per run (the database says so), so a
    redelivered task or a repeated upload can never be counted twice."""

    run = models.OneToOneField(Run, on_delete=models.PROTECT, related_name="result")
    attempt = models.PositiveIntegerField()
    worker = models.ForeignKey("benchmarks_app.Worker", on_delete=models.PROTECT, related_name="+")
    payload = models.JSONField()
    # SHA-256 of the canonical JSON: a repeat upload is recognised by it.
    digest = models.CharField(max_length=64)
    # Per-level aggregates of each arm (benchmarks_app.aggregates), computed once when the
    # result lands so pages never read the raw samples: {"baseline": [...], "candidate": [...]}.
    aggregates = models.JSONField(default=dict)
    received_at = models.DateTimeField(auto_now_add=True)
    # When the retention setting (RAW_SAMPLES_RETENTION_DAYS) took the per-request samples
    # out of `payload` (benchmarks_app/services/retention.py): the rest of the payload, the
    # digest and the aggregates stay; readers of samples answer that they are gone.
    samples_pruned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at"]
        indexes = [
            # The prune's scan: results still holding samples, oldest first (the rows
            # already pruned, most of them in time, stay out of the index).
            models.Index(
                fields=["received_at"],
                name="result_samples_held",
                condition=models.Q(samples_pruned_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"result of run {self.run_id} attempt {self.attempt}"
