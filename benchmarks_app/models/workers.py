from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class BootstrapTokenQuerySet(models.QuerySet["BootstrapToken"]):
    def usable(self) -> BootstrapTokenQuerySet:
        now = timezone.now()
        return self.filter(revoked_at__isnull=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )


class BootstrapToken(models.Model):
    """Lets a new machine register as a worker. One token may enrol a fleet until it
    expires or is revoked; each registration gets its own worker token."""

    token_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=16)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)

    objects = BootstrapTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"bootstrap {self.hint}…"


class WorkerQuerySet(models.QuerySet["Worker"]):
    def online(self) -> WorkerQuerySet:
        return self.filter(revoked_at__isnull=True, last_heartbeat_at__gte=offline_cutoff())

    def with_current_run(self) -> WorkerQuerySet:
        return self.prefetch_related(
            models.Prefetch(
                "runs",
                queryset=_active_runs(),
                to_attr="active_runs",
            )
        )


def _active_runs() -> models.QuerySet:
    from benchmarks_app.choices import RunState
    from benchmarks_app.models.runs import Run

    return Run.objects.filter(state=RunState.RUNNING).select_related("route").order_by("-started_at")


def assigned_pools(hardware_class: str, capabilities: list[str]) -> list[str]:
    """The pools a worker serves by what it reports, in the names `services.runs._queue_for`
    sends runs to: its hardware class, the generic `pool.gpu` for any GPU worker,
    `engine.transformers` where it can run the in-process engine, and `pool.any` (runs any
    machine can do: given endpoints)."""
    pools = [f"pool.{hardware_class}"]
    if hardware_class.startswith("gpu") and hardware_class != "gpu":
        pools.append("pool.gpu")
    if "transformers" in capabilities:
        pools.append("engine.transformers")
    pools.append("pool.any")
    return pools


# What a queue or pool may be called (registration's `queues`, a run's or an advice run's `pool`).
QUEUE_NAME_PATTERN = r"^[A-Za-z0-9._:-]{1,100}$"


def is_reserved_queue(name: str) -> bool:
    """Names only the control plane hands out: a worker's own queue (`worker.N`), the
    engine pools (`engine.*`) and the hardware pools (`pool.cpu`, `pool.gpu`,
    `pool.gpu-*`, `pool.any`). Anything else is an operator-named pool (`--queue`)."""
    return name.startswith(("worker.", "engine.", "pool.gpu-")) or name in {
        "pool.cpu",
        "pool.gpu",
        "pool.any",
    }


def offline_cutoff(now: datetime | None = None) -> datetime:
    """A worker whose last heartbeat is older than this is offline."""
    return (now or timezone.now()) - timedelta(seconds=settings.WORKER_OFFLINE_AFTER_S)


class Worker(models.Model):
    """A registered inference machine. It never touches the database: everything here
    arrives over the REST API with its token."""

    # The API throttle's rate for requests made with a worker's token (kernel/api/throttles.py):
    # workers report progress and results at the pace of their runs.
    throttle_scope = "worker"

    name = models.CharField(max_length=100)
    host = models.CharField(max_length=255)
    # "cpu", "gpu-h100", "gpu-a10g": decides the pool queue it consumes.
    hardware_class = models.CharField(max_length=64)
    hardware = models.JSONField(default=dict)
    engines = models.JSONField(default=dict)
    capabilities = models.JSONField(default=list)
    agent_version = models.CharField(max_length=32)
    spec_versions = models.JSONField(default=list)
    extra_queues = models.JSONField(default=list)
    bootstrap_token = models.ForeignKey(
        BootstrapToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="workers"
    )
    registered_at = models.DateTimeField(auto_now_add=True)
    last_heartbeat_at = models.DateTimeField(null=True, blank=True)
    # What the worker said it was running in its last heartbeat: {"id", "attempt"} or null.
    reported_run = models.JSONField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = WorkerQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"

    @property
    def own_queue(self) -> str:
        return f"worker.{self.pk}"

    @property
    def queues(self) -> list[str]:
        """Its own queue first, then the pools the control plane assigns it
        (`assigned_pools`), then the operator-named pools it registered with. Another
        worker's `worker.N` never counts, even in a row written before registration
        refused such names."""
        queues = [self.own_queue, *assigned_pools(self.hardware_class, self.capabilities)]
        return queues + [q for q in self.extra_queues if q not in queues and not is_reserved_queue(q)]

    @property
    def is_online(self) -> bool:
        if self.revoked_at is not None or self.last_heartbeat_at is None:
            return False
        return self.last_heartbeat_at >= offline_cutoff()

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        return "online" if self.is_online else "offline"


class WorkerCredential(models.Model):
    """A worker's own token, hashed. Separate from the worker so a credential can be
    revoked (with the worker, or rotated) while the worker's history stays."""

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="credentials")
    token_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"credential {self.hint}… of worker {self.worker_id}"
