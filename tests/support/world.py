"""A world with every kind of page populated, built through the real services: a route
with a benchmarked release and its verdict (charts), a second route whose v2 measures on
a registered workload (`workload:…@sha256:…`, the longest unbroken value the pages show),
endpoints, a webhook with deliveries, a signed audit checkpoint, a run in progress."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.test import override_settings

from audit_app.checkpoints import checkpoint_create
from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_progress, run_start
from live_app.services import endpoint_create
from releases_app.models import Release
from tests.support.benchmarked import active_route, benchmarked_release, propose_candidate, register_worker
from tests.support.factories import example, make_version, variant
from webhooks_app.services import subscription_create
from workloads_app.models import WorkloadVersion
from workloads_app.services import UploadOptions, workload_upload

SYSTEM = {"role": "system", "content": "You are the support desk of Harbor Calendars."}


def production_logs(conversations: int = 8) -> bytes:
    """Chat-completions request logs: each conversation's second request carries the first."""
    lines = []
    for i in range(conversations):
        first = [SYSTEM, {"role": "user", "content": f"Calendar {i} stopped syncing on my Atlas phone."}]
        answer = {"role": "assistant", "content": f"Which version of the app is calendar {i} on?"}
        second = [*first, answer, {"role": "user", "content": f"Version 4.{i}, updated last week."}]
        lines += [json.dumps({"model": "m", "messages": m}) for m in (first, second)]
    return ("\n".join(lines) + "\n").encode()


@dataclass
class World:
    release: Release  # awaiting review, with a verdict and charts
    running: Release  # benchmarking, its first run part way
    workload: WorkloadVersion


def chat_contract(dataset: str) -> dict[str, Any]:
    lane = {"dataset": dataset, "concurrency": [1, 4, 16, 32], "requests_per_level": 6, "max_tokens": 32}
    return variant(
        example("support-chat-eagle3"), route="support-chat", **{"measurement.workloads": {"chat": lane}}
    )


def build_world(*, proposer: Any, approver: Any, operator: Any, admin: Any) -> World:
    """Needs settings with WEBHOOK_ALLOW_LOOPBACK, ENDPOINT_ALLOWED_NETWORKS covering
    loopback and an AUDIT_SIGNING_KEY (the caller's `settings`)."""
    subscription_create(
        url="http://127.0.0.1:9/hooks/specpact", events=["release.*"], description="CI", actor=admin
    )
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0"):
        release = benchmarked_release(proposer=proposer, approver=approver)
    upload = workload_upload(
        name="support-chat-2026-11",
        raw=production_logs(),
        options=UploadOptions(format="openai", source="production logs"),
        actor=operator,
    )
    workload = upload.version
    make_version("support-chat", chat_contract("builtin:chat"))
    make_version("support-chat", chat_contract(workload.dataset))
    for name in ("prod-eu-west-1.inference.internal", "canary"):
        endpoint_create(
            route="contract-summaries", name=name.split(".")[0], base_url=f"http://127.0.0.1:9/{name}/v1",
            engine="vllm", actor=operator,
        )  # fmt: skip
    running = propose_candidate(
        active=active_route(proposer=proposer, approver=approver, slug="polled-route"), proposer=proposer
    )
    run = Run.objects.filter(release=running).order_by("id").first()
    assert run is not None
    worker = register_worker("gpu-box-2")
    run_start(run_id=run.pk, worker=worker, attempt=1)
    run_progress(
        run_id=run.pk, worker=worker, attempt=1, done=5, total=run.progress_total, phase="benchmarking"
    )
    checkpoint_create()
    return World(release=release, running=running, workload=workload)
