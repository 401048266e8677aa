"""Named states in one place: runs, engine kinds, outcomes a worker reports."""

from __future__ import annotations

from django.db import models


class RunState(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    SUCCEEDED = "succeeded", "succeeded"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"
    TIMED_OUT = "timed_out", "timed out"


# A run in one of these states never changes again.
FINISHED_STATES = frozenset({RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED, RunState.TIMED_OUT})
ACTIVE_STATES = frozenset({RunState.QUEUED, RunState.RUNNING})


class EngineKind(models.TextChoices):
    TRANSFORMERS = "transformers", "Transformers, in-process on the worker"
    OPENAI = "openai", "given OpenAI-compatible endpoints"
    MANAGED = "managed", "engine launched by the worker from the rendered command"


class FailureKind(models.TextChoices):
    """What a worker says went wrong, so the run lands in the right final state."""

    ERROR = "error", "the benchmark failed"
    TIMEOUT = "timeout", "the run hit its time limit"
    REFUSED = "refused", "the worker cannot run this specification"


class RunPhase(models.TextChoices):
    """What a running benchmark is doing, as its worker reports it with its progress."""

    ENGINE_STARTING = "engine_starting", "the engine is starting and loading its model"
    MODEL_LOADING = "model_loading", "the model is loading"
    BENCHMARKING = "benchmarking", "benchmarking"
