"""What a restored control plane's rows must hold to be trusted: the audit chain and its
checkpoints (audit_app's own full walk, not a second verifier), the idempotency keys'
stored answers and what they name, the outbox's dispatches and the runs they belong to,
and how many rows each table has."""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db.models import CharField, Exists, F, Model, OuterRef, Value
from django.db.models.functions import Cast, Concat
from django.urls import Resolver404, resolve
from django.utils import timezone

from audit_app.checkpoints import describe, verify_audit
from audit_app.models import AuditCheckpoint
from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run
from contracts_app.models import ContractVersion
from kernel.models import IdempotencyKey
from releases_app.models import Release
from specpact.restore.findings import Checked
from specpact.restore.schema import project_models
from webhooks_app.models import Delivery, DeliveryState, Subscription
from workloads_app.models import WorkloadVersion


def check_audit(*, public: Ed25519PublicKey | None = None) -> Checked:
    """The full walk with every stored checkpoint held to the chain under the configured
    keys (or `public`): what `manage.py verify_audit` runs. Checkpoints verify only under
    the deployment's keys, so the restored server needs AUDIT_SIGNING_KEY (or the public
    key in AUDIT_VERIFY_KEYS / --public-key), which is not in the database."""
    status = verify_audit(public=public)
    checkpoints = AuditCheckpoint.objects.count()
    counts = {"events": status["events"], "checkpoints": checkpoints}
    if not status["valid"]:
        at = f" at event #{status['first_broken']}" if status["first_broken"] is not None else ""
        problem = f"audit chain BROKEN{at} ({status['problem']}): {describe(status)}"
        return Checked(
            "audit_chain", f"{status['events']} events walked; the chain does not verify", [problem], counts
        )
    newest = status["checkpoint"]
    held = (
        f"all {checkpoints} signed checkpoints match it; the newest vouches for events 1 to "
        f"{newest['event_id']}"
        if newest
        else "no signed checkpoint yet: nothing outside the database vouches for these events"
    )
    return Checked(
        "audit_chain", f"{status['events']} events walked, the chain verifies end to end; {held}", [], counts
    )


def _location_target(path: str) -> tuple[str, bool | None]:
    """(what the answer's Location names, whether this database holds it); None: a kind
    of object this check does not look up."""
    match = resolve(path)
    kw = match.kwargs
    lookups: dict[str, tuple[type[Model], dict[str, Any]]] = {
        "api-release": (Release, {"pk": kw.get("release_id")}),
        "api-run": (Run, {"pk": kw.get("run_id")}),
        "api-version": (ContractVersion, {"route__slug": kw.get("slug"), "number": kw.get("number")}),
    }
    if match.url_name == "api-workload":
        name, _, digest = str(kw.get("key", "")).partition("@")
        lookups["api-workload"] = (WorkloadVersion, {"name": name, "digest": digest})
    if match.url_name not in lookups:
        return str(match.url_name), None
    model, where = lookups[match.url_name]
    return str(model._meta.verbose_name), model._default_manager.filter(**where).exists()


def _owner_exists(scope: str) -> bool:
    """`scope` is `<app_label.model>:<pk>` for a token, `user:<pk>` for a session's user
    (kernel/api/idempotency.py `_scope`)."""
    label, _, pk = scope.rpartition(":")
    try:
        model = get_user_model() if label == "user" else apps.get_model(label)
    except (LookupError, ValueError):
        return False
    return bool(model.objects.filter(pk=pk).exists())


def check_idempotency() -> Checked:
    """Every stored key must hold a whole answer (status and JSON body): the key's row is
    written in the transaction of the request it answers, so a consistent snapshot never
    holds one half done. A 2xx answer's Location must name a row this database holds: a
    replay would otherwise send the caller to an object that is not there."""
    problems: list[str] = []
    now = timezone.now()
    total = live = located = unowned = 0
    for row in IdempotencyKey.objects.order_by("id").iterator(chunk_size=2000):
        total += 1
        live += row.expires_at > now
        name = f"key {row.key!r} of {row.scope}"
        if row.status is None:
            problems.append(f"{name} has no stored answer (a request caught half done: the copy is torn)")
            continue
        if row.body:
            try:
                json.loads(row.body)
            except ValueError:
                problems.append(f"{name}: its stored body is not JSON")
        if not _owner_exists(row.scope):
            unowned += 1  # a deleted token's keys stay until purged; nobody can replay them
        location = (row.headers or {}).get("Location")
        if location and 200 <= row.status < 300:
            try:
                what, held = _location_target(str(location))
            except Resolver404:
                problems.append(f"{name}: its answer's Location {location} is no path of this API")
                continue
            if held is not None:
                located += 1
                if not held:
                    problems.append(
                        f"{name} answered {row.status} with Location {location}: no such {what} here"
                    )
    counts = {"keys": total, "unexpired": live, "locations_checked": located, "owner_gone": unowned}
    summary = (
        f"{total} idempotency keys ({live} unexpired), each with a stored answer; "
        f"{located} answers' Location found in this database"
    )
    if unowned:
        summary += f"; {unowned} belong to a token or user that is gone (no one can replay them)"
    return Checked("idempotency_keys", summary, problems, counts)


def check_outbox() -> Checked:
    """Dispatches whose run is missing, or that do not match it. What was in the broker
    (Redis) is not in the dump: pending messages are published by the relay; a running run
    whose worker went silent is requeued or failed by the sweeper (benchmarks_app/services/
    sweep.py); a queued run whose message was already published waits on the broker still
    holding it, so it is counted here (docs/backup.md says what to do when Redis was lost)."""
    problems: list[str] = []
    orphans = OutboxMessage.objects.filter(~Exists(Run.objects.filter(pk=OuterRef("run_id"))))
    for msg in orphans.values("pk", "run_id")[:20]:
        problems.append(f"outbox message #{msg['pk']} dispatches run #{msg['run_id']}, which is missing")
    expected_id = Concat(
        Value("run-"), Cast("run_id", CharField()), Value("-attempt-"), Cast("attempt", CharField())
    )
    mismatched = OutboxMessage.objects.exclude(task_id=expected_id).filter(run__isnull=False)
    for msg in mismatched.values("pk", "task_id", "run_id", "attempt")[:20]:
        problems.append(
            f"outbox message #{msg['pk']} has task id {msg['task_id']!r}, not that of run "
            f"#{msg['run_id']} attempt {msg['attempt']}"
        )
    ahead = OutboxMessage.objects.filter(attempt__gt=F("run__attempt"))
    for msg in ahead.values("pk", "run_id", "attempt")[:20]:
        problems.append(
            f"outbox message #{msg['pk']} is for attempt {msg['attempt']} of run #{msg['run_id']}, "
            "which never made it"
        )
    lost_subscription = Delivery.objects.filter(
        ~Exists(Subscription.objects.filter(pk=OuterRef("subscription_id")))
    )
    for d in lost_subscription.values("pk", "subscription_id")[:20]:
        problems.append(
            f"webhook delivery #{d['pk']} is for subscription #{d['subscription_id']}, which is missing"
        )
    messages = OutboxMessage.objects.count()
    pending = OutboxMessage.objects.filter(published_at__isnull=True, discarded_at__isnull=True).count()
    running = Run.objects.filter(state=RunState.RUNNING).count()
    published = OutboxMessage.objects.filter(
        run_id=OuterRef("pk"), attempt=OuterRef("attempt"), published_at__isnull=False
    )
    waiting = Run.objects.filter(Exists(published), state=RunState.QUEUED).order_by("id")
    on_broker = waiting.count()
    named = ", ".join(f"#{pk}" for pk in waiting.values_list("pk", flat=True)[:20])
    deliveries = Delivery.objects.filter(state=DeliveryState.PENDING).count()
    counts = {
        "messages": messages,
        "pending": pending,
        "running_runs": running,
        "queued_on_broker": on_broker,
        "pending_deliveries": deliveries,
    }
    summary = (
        f"{messages} outbox messages, each for a run that exists; {pending} not yet published (the relay "
        f"publishes them); {running} runs running (the sweeper requeues or fails those whose worker "
        f"went silent); {on_broker} queued runs whose message is on the broker (they wait for it; "
        f"if Redis was lost, cancel them: POST /api/v1/runs/{{id}}/cancel)"
        + (f" {named}" if named else "")
        + f"; {deliveries} webhook deliveries pending"
    )
    return Checked("outbox", summary, problems, counts)


def table_counts() -> Checked:
    counts = {m._meta.label: m._default_manager.count() for m in project_models()}
    main = (
        "contracts_app.Route",
        "contracts_app.ContractVersion",
        "releases_app.Release",
        "benchmarks_app.Run",
    )
    said = ", ".join(f"{counts.get(label, 0)} {label.split('.')[-1]}" for label in main)
    summary = f"{len(counts)} tables, {sum(counts.values())} rows: {said}"
    return Checked("counts", summary, [], counts)
