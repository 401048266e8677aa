"""Worker enrolment: bootstrap tokens, registration, heartbeats, revocation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts_app.permissions import ensure_fleet_wide
from audit_app.actors import Actor
from audit_app.services import audit_record
from benchmarks_app.models import BootstrapToken, Worker, WorkerCredential
from benchmarks_app.models.workers import assigned_pools, is_reserved_queue
from benchmarks_app.tokens import BOOTSTRAP_PREFIX, WORKER_PREFIX, new_token, token_hash, token_hint
from kernel.errors import Conflict, DomainError, FieldError
from kernel.text import NOTE_MAX, REASON_MAX, checked_text

# Words in an NVML device name that say nothing about the class of the GPU.
_GPU_NOISE = re.compile(r"^(nvidia|geforce|tesla|quadro|pcie|sxm\d*|nvl|hbm\d*e?|\d+gb)$")


def hardware_class_of(hardware: dict[str, Any]) -> str:
    """`cpu`, or `gpu-<model>` from the first GPU's name ("NVIDIA H100 80GB HBM3" → gpu-h100,
    "NVIDIA GeForce RTX 4090" → gpu-rtx-4090). Runs in one pool are comparable."""
    gpus = hardware.get("gpus") or []
    if not gpus:
        return "cpu"
    words = re.split(r"[\s_-]+", str(gpus[0].get("name", "")).lower())
    kept = [re.sub(r"[^a-z0-9]", "", w) for w in words if w and not _GPU_NOISE.match(w)]
    model = "-".join(w for w in kept if w)[:50]
    return f"gpu-{model}" if model else "gpu"


@transaction.atomic
def bootstrap_token_create(
    *, actor: Any = None, expires_at: datetime | None = None, note: str = ""
) -> tuple[BootstrapToken, str]:
    """Returns the row and the token itself, which is shown once and stored hashed."""
    ensure_fleet_wide(actor, "issue bootstrap tokens")
    note = checked_text(note, field="note", max_length=NOTE_MAX)
    token = new_token(BOOTSTRAP_PREFIX)
    user = actor.user if isinstance(actor, Actor) else actor
    row = BootstrapToken.objects.create(
        token_hash=token_hash(token),
        hint=token_hint(token),
        note=note,
        created_by=user if getattr(user, "is_authenticated", False) else None,
        expires_at=expires_at,
    )
    audit_record(
        actor=actor,
        action="worker.bootstrap_token.issue",
        obj_type="bootstrap_token",
        obj_id=row.pk,
        after={"hint": row.hint, "expires_at": expires_at, "note": note},
    )
    return row, token


@transaction.atomic
def bootstrap_token_revoke(*, token: BootstrapToken, actor: Any) -> BootstrapToken:
    ensure_fleet_wide(actor, "revoke bootstrap tokens")
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="worker.bootstrap_token.revoke",
        obj_type="bootstrap_token",
        obj_id=token.pk,
        before={"hint": token.hint, "uses": token.uses},
        after={"revoked_at": token.revoked_at},
    )
    return token


def bootstrap_token_for(token: str) -> BootstrapToken | None:
    if not token.startswith(BOOTSTRAP_PREFIX):
        return None
    return BootstrapToken.objects.usable().filter(token_hash=token_hash(token)).first()


def _operator_pools(queues: list[str], hardware_class: str, capabilities: list[str]) -> list[str]:
    """The extra queues a worker asks for, checked: the control plane assigns a worker its
    own queue and the pools its hardware and engines qualify it for, so asking for another
    worker's `worker.N` (to receive the runs pinned to it), or for a pool it does not
    qualify for, is refused as a whole (400, naming each entry) rather than silently
    dropped: an operator who typed `--queue` learns at once that the worker will not serve
    it, and nothing is registered. Naming a pool it qualifies for anyway is harmless."""
    assigned = assigned_pools(hardware_class, capabilities)
    errors = []
    for i, name in enumerate(queues):
        if name.startswith("worker."):
            errors.append(
                FieldError(
                    f"queues[{i}]",
                    f"{name!r} is a worker's own queue: the control plane gives each worker its own "
                    "(worker.<its id>) and no worker may consume another's",
                )
            )
        elif is_reserved_queue(name) and name not in assigned:
            errors.append(
                FieldError(
                    f"queues[{i}]",
                    f"{name!r} is assigned by the control plane from the worker's hardware and engines; "
                    f"this worker ({hardware_class}) gets {', '.join(assigned)}",
                )
            )
    if errors:
        raise DomainError("The registration asks for queues this worker may not consume.", errors=errors)
    return list(dict.fromkeys(q for q in queues if q not in assigned))


@dataclass(frozen=True)
class Registration:
    worker: Worker
    token: str


@transaction.atomic
def worker_register(
    *,
    bootstrap: BootstrapToken,
    name: str,
    host: str,
    hardware: dict[str, Any],
    engines: dict[str, Any],
    capabilities: list[str],
    agent_version: str,
    spec_versions: list[int],
    extra_queues: list[str],
) -> Registration:
    hardware_class = hardware_class_of(hardware)
    capabilities = sorted(set(capabilities))
    worker = Worker.objects.create(
        name=name,
        host=host,
        hardware_class=hardware_class,
        hardware=hardware,
        engines=engines,
        capabilities=capabilities,
        agent_version=agent_version,
        spec_versions=sorted(set(spec_versions)),
        extra_queues=_operator_pools(extra_queues, hardware_class, capabilities),
        bootstrap_token=bootstrap,
        # Registering is a sign of life: the worker is online until it falls silent.
        last_heartbeat_at=timezone.now(),
    )
    token = new_token(WORKER_PREFIX)
    WorkerCredential.objects.create(worker=worker, token_hash=token_hash(token), hint=token_hint(token))
    BootstrapToken.objects.filter(pk=bootstrap.pk).update(uses=bootstrap.uses + 1)
    audit_record(
        actor=Actor.worker(name),
        action="worker.register",
        obj_type="worker",
        obj_id=worker.pk,
        after={
            "name": name,
            "host": host,
            "hardware_class": worker.hardware_class,
            "queues": worker.queues,
            "engines": engines,
            "agent_version": agent_version,
            "bootstrap_token": bootstrap.hint,
        },
    )
    return Registration(worker=worker, token=token)


def worker_for_token(token: str) -> Worker | None:
    if not token.startswith(WORKER_PREFIX):
        return None
    credential = (
        WorkerCredential.objects.select_related("worker")
        .filter(token_hash=token_hash(token), revoked_at__isnull=True, worker__revoked_at__isnull=True)
        .first()
    )
    return credential.worker if credential else None


def worker_heartbeat(*, worker: Worker, current_run: dict[str, int] | None) -> Worker:
    """One UPDATE, no transaction: heartbeats are frequent and carry nothing to keep
    consistent with anything else."""
    if current_run is not None and set(current_run) != {"id", "attempt"}:
        raise DomainError("current_run must be null or {id, attempt}")
    now = timezone.now()
    Worker.objects.filter(pk=worker.pk).update(last_heartbeat_at=now, reported_run=current_run)
    worker.last_heartbeat_at, worker.reported_run = now, current_run
    return worker


@transaction.atomic
def worker_revoke(*, worker: Worker, actor: Any, reason: str) -> Worker:
    """Its token stops working at once; a run it holds is lost and handled by the sweep."""
    ensure_fleet_wide(actor, "revoke workers")
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    locked = Worker.objects.select_for_update().get(pk=worker.pk)
    if locked.revoked_at is not None:
        raise Conflict(f"worker {locked.pk} is already revoked", code="already_revoked")
    now = timezone.now()
    locked.revoked_at = now
    locked.save(update_fields=["revoked_at"])
    WorkerCredential.objects.filter(worker=locked, revoked_at__isnull=True).update(revoked_at=now)
    audit_record(
        actor=actor,
        action="worker.revoke",
        obj_type="worker",
        obj_id=locked.pk,
        before={"status": "registered"},
        after={"status": "revoked"},
        reason=reason,
    )
    return locked
