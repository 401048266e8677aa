from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from pydantic import ValidationError as PydanticError
from rest_framework import serializers

from benchmarks_app.choices import EngineKind, FailureKind, RunPhase
from benchmarks_app.models import Run, Worker
from benchmarks_app.models.workers import QUEUE_NAME_PATTERN
from contracts_app.document.engines import SERVER_ENGINES
from kernel.errors import field_errors
from kernel.text import FAILURE_REASON_MAX, REASON_MAX
from worker.harness.results.bounds import MAX_TOKENS
from worker.harness.results.result import HardwareFacts
from worker.spec import (
    INT32_MAX,
    INT64_MAX,
    MAX_CONCURRENCY,
    MAX_LEVELS,
    MAX_REQUESTS_PER_LEVEL,
    MAX_TIME_LIMIT_S,
    MAX_WARMUP_REQUESTS,
)

_QUEUE_NAME = QUEUE_NAME_PATTERN


class RegisterIn(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    host = serializers.CharField(max_length=255)
    agent_version = serializers.CharField(max_length=32)
    spec_versions = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=INT32_MAX), min_length=1, max_length=100
    )
    hardware = serializers.DictField(help_text="worker.harness.results.result.HardwareFacts")
    engines = serializers.DictField(
        child=serializers.CharField(allow_null=True, max_length=100), required=False, default=dict
    )
    capabilities = serializers.ListField(
        child=serializers.ChoiceField(choices=[*EngineKind.values, "cuda"]), required=False, default=list
    )
    queues = serializers.ListField(
        child=serializers.RegexField(_QUEUE_NAME),
        required=False,
        default=list,
        max_length=10,
        help_text="operator-named pools to consume as well; the worker's own queue and its hardware "
        "and engine pools are assigned by the control plane (asking for `worker.*`, or for a pool "
        "the worker does not qualify for, is a 400)",
    )

    def validate_hardware(self, value: dict[str, Any]) -> dict[str, Any]:
        try:
            return HardwareFacts.model_validate(value).model_dump(mode="json")
        except PydanticError as exc:
            # Paths relative to `hardware`: DRF puts the field's name in front.
            raise serializers.ValidationError(
                {e.path or "non_field_errors": e.message for e in field_errors(exc)}
            ) from None


class CurrentRunIn(serializers.Serializer):
    id = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
    attempt = serializers.IntegerField(min_value=1, max_value=INT32_MAX)


class HeartbeatIn(serializers.Serializer):
    current_run = CurrentRunIn(allow_null=True, required=False, default=None)


class AttemptIn(serializers.Serializer):
    attempt = serializers.IntegerField(min_value=1, max_value=INT32_MAX)


class ProgressIn(AttemptIn):
    # The run's progress columns are 32-bit.
    done = serializers.IntegerField(min_value=0, max_value=INT32_MAX)
    total = serializers.IntegerField(min_value=1, max_value=INT32_MAX)
    phase = serializers.ChoiceField(
        choices=RunPhase.choices,
        required=False,
        help_text="what the worker is doing: engine_starting, model_loading or benchmarking",
    )


class FailIn(AttemptIn):
    kind = serializers.ChoiceField(choices=FailureKind.choices)
    reason = serializers.CharField(max_length=FAILURE_REASON_MAX)


class ResultIn(serializers.Serializer):
    """Only the key is read here; the whole body is the worker.spec.RunOutcome, checked by
    the service against the run's specification."""

    attempt = serializers.IntegerField(min_value=1, max_value=INT32_MAX)


class ReasonIn(serializers.Serializer):
    reason = serializers.CharField(max_length=REASON_MAX, required=False, allow_blank=True, default="")


class EndpointIn(serializers.Serializer):
    base_url = serializers.URLField(max_length=500)
    model = serializers.CharField(max_length=200)
    api = serializers.ChoiceField(choices=["completions", "chat"], required=False)
    server = serializers.ChoiceField(choices=["generic", *SERVER_ENGINES], required=False)
    binding = serializers.CharField(
        max_length=40,
        required=False,
        help_text="one of the route's secret bindings (routes/{slug}/secret-bindings/), sent as "
        "Authorization: Bearer, only to its hosts",
    )
    api_key_env = serializers.CharField(
        max_length=128,
        required=False,
        help_text="accepted only as the reference of one of the route's bindings",
    )
    api_key_file = serializers.CharField(
        max_length=4096,
        required=False,
        help_text="accepted only as the reference of one of the route's bindings",
    )


class EndpointsIn(serializers.Serializer):
    baseline = EndpointIn()
    candidate = EndpointIn()


class RunCreateIn(serializers.Serializer):
    route = serializers.SlugField(max_length=64)
    baseline_version = serializers.IntegerField(
        min_value=1, max_value=INT32_MAX, required=False, help_text="default: the active version"
    )
    candidate_version = serializers.IntegerField(min_value=1, max_value=INT32_MAX)
    lane = serializers.CharField(max_length=64, required=False)
    engine = serializers.ChoiceField(choices=EngineKind.choices, required=False)
    endpoints = EndpointsIn(required=False)
    worker = serializers.IntegerField(
        min_value=1, max_value=INT64_MAX, required=False, help_text="send to this worker's own queue"
    )
    pool = serializers.RegexField(_QUEUE_NAME, required=False, help_text="e.g. gpu-h100 or pool.cpu")
    concurrency = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_CONCURRENCY),
        min_length=1,
        max_length=MAX_LEVELS,
        required=False,
    )
    requests_per_level = serializers.IntegerField(
        min_value=1, max_value=MAX_REQUESTS_PER_LEVEL, required=False
    )
    max_tokens = serializers.IntegerField(min_value=1, max_value=MAX_TOKENS, required=False)
    warmup_requests = serializers.IntegerField(min_value=0, max_value=MAX_WARMUP_REQUESTS, required=False)
    seed = serializers.IntegerField(min_value=0, max_value=INT64_MAX, required=False)
    time_limit_s = serializers.IntegerField(min_value=60, max_value=MAX_TIME_LIMIT_S, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "worker" in attrs and "pool" in attrs:
            raise serializers.ValidationError({"pool": "give a worker or a pool, not both"})
        return attrs


class WorkerOut(serializers.ModelSerializer):
    queues = serializers.ListField(child=serializers.CharField(), read_only=True)
    status = serializers.CharField(read_only=True)
    current_run = serializers.SerializerMethodField()

    class Meta:
        model = Worker
        fields = [
            "id",
            "name",
            "host",
            "status",
            "hardware_class",
            "hardware",
            "engines",
            "capabilities",
            "agent_version",
            "spec_versions",
            "queues",
            "registered_at",
            "last_heartbeat_at",
            "revoked_at",
            "current_run",
        ]

    def get_current_run(self, worker: Worker) -> int | None:
        """Null for a route-scoped token when the run is another route's: the fleet is
        shared, the runs on it are not (context `routes_in_scope`, None when unscoped)."""
        active = getattr(worker, "active_runs", None)
        if not active:
            return None
        scope = self.context.get("routes_in_scope")
        return active[0].pk if scope is None or active[0].route.slug in scope else None


class RunStepOut(serializers.Serializer):
    """The step running now: one level of one arm (benchmarks_app/progress.py)."""

    arm = serializers.ChoiceField(choices=["baseline", "candidate"])
    level = serializers.IntegerField(help_text="1-based, in the lane's order of levels")
    levels = serializers.IntegerField()
    number = serializers.IntegerField(help_text="the step's position among all steps, 1-based")
    steps = serializers.IntegerField()
    elapsed_s = serializers.IntegerField(help_text="seconds since this step began")
    eta_s = serializers.IntegerField(
        allow_null=True,
        help_text="about how many seconds the run has left: each step still to run expected to take "
        "what the same level took on the other arm, else the mean of the steps measured so far; "
        "null until a step has finished",
    )


class RunProgressOut(serializers.Serializer):
    done = serializers.IntegerField(help_text="requests sent, both arms together")
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    step = RunStepOut(allow_null=True, help_text="while running: the level and arm running now")
    words = serializers.CharField(
        help_text="the phase, the step, its elapsed time and the estimate, in words"
    )


class RunOut(serializers.ModelSerializer):
    # Plain strings in the schema: the choice sets are documented on the inputs, and
    # releases have a `state` of their own (one enum name each).
    state = serializers.CharField(
        read_only=True, help_text="queued, running, succeeded, failed, cancelled, timed_out"
    )
    engine_kind = serializers.CharField(read_only=True, help_text="transformers, openai or managed")
    route = serializers.CharField(source="route.slug")
    release = serializers.IntegerField(source="release_id", allow_null=True)
    advice = serializers.IntegerField(
        source="advice_id", allow_null=True, help_text="the advice run it measures a batch of (advice/{id}/)"
    )
    baseline_version = serializers.IntegerField(source="baseline_version.number")
    candidate_version = serializers.IntegerField(source="candidate_version.number")
    worker = serializers.IntegerField(source="worker_id", allow_null=True)
    progress = serializers.SerializerMethodField()
    has_result = serializers.SerializerMethodField()
    waiting_reason = serializers.CharField(
        read_only=True,
        help_text="while queued with no online worker able to serve it: which engine and pool it "
        "needs and why each worker doesn't fit; empty otherwise. After RUN_WORKER_WAIT_MAX_S of "
        "this the run fails with the reason in last_error",
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "route",
            "release",
            "advice",
            "lane",
            "baseline_version",
            "candidate_version",
            "engine_kind",
            "queue",
            "state",
            "attempt",
            "worker",
            "progress",
            "last_error",
            "waiting_reason",
            "waiting_since",
            "phase",
            "phase_since",
            "history",
            "created_at",
            "started_at",
            "finished_at",
            "has_result",
        ]

    @extend_schema_field(RunProgressOut)
    def get_progress(self, run: Run) -> dict[str, Any]:
        step = run.step
        return {
            "done": run.progress_done,
            "total": run.progress_total,
            "percent": run.progress_percent,
            "step": step.as_dict() if step is not None else None,
            "words": run.progress_words,
        }

    def get_has_result(self, run: Run) -> bool:
        # Lists annotate it (RunQuerySet.for_listing) rather than load the result.
        exists = getattr(run, "result_exists", None)
        return hasattr(run, "result") if exists is None else bool(exists)


class RunDetailOut(RunOut):
    # The result is read with the run (RunQuerySet.with_relations); no result: null.
    samples_pruned_at = serializers.DateTimeField(
        source="result.samples_pruned_at",
        allow_null=True,
        read_only=True,
        help_text="when the retention setting (RAW_SAMPLES_RETENTION_DAYS) took the result's raw "
        "samples out (its result and result.csv then answer 410; the aggregates stay); null while "
        "they are kept or there is no result",
    )

    class Meta(RunOut.Meta):
        fields = [*RunOut.Meta.fields, "spec", "samples_pruned_at"]
