"""What `/metrics` says about a database seeded with one of everything it counts: each
value checked against the rows written."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from audit_app.checkpoints import verify_audit
from audit_app.models import AuditCheckpoint, AuditEvent
from benchmarks_app.models import OutboxMessage, Run, Worker
from contracts_app.models import Route
from live_app.models import AcceptanceAlert, AcceptanceSample, Endpoint
from releases_app.models import Decision, Release
from tests.observability.conftest import scrape, value
from tests.support.benchmarked import register_worker
from tests.support.gates import gate_result
from tests.support.query_counts import assert_num_queries
from webhooks_app.models import Delivery, Subscription

pytestmark = pytest.mark.django_db
# releases, gate checks, decisions, endpoints, alerts, runs, waiting runs, workers, outbox,
# deliveries (2), audit mark, checkpoint.
QUERIES_PER_SCRAPE = 13


def test_releases_by_state_count_every_state_zeros_included(awaiting: Release) -> None:
    series = scrape()
    assert value(series, "specpact_releases", state="active") == 1
    assert value(series, "specpact_releases", state="awaiting_review") == 1
    assert value(series, "specpact_releases", state="rolled_back") == 0
    assert value(series, "specpact_up") == 1


def test_gate_checks_are_counted_by_rule_lane_and_verdict(awaiting: Release) -> None:
    stored = gate_result("fail")
    Release.objects.filter(pk=awaiting.pk).update(gate_result=stored, gate_verdict="fail")
    expected = Counter((c["rule_id"], c.get("lane") or "", c["verdict"]) for c in stored["checks"])
    assert expected  # the gate has checks at lanes to count
    series = scrape()
    got = {
        (dict(labels)["rule"], dict(labels)["lane"], dict(labels)["verdict"]): n
        for (name, labels), n in series.items()
        if name == "specpact_gate_checks"
    }
    assert got == dict(expected)


def test_time_to_decision_is_a_histogram_of_stored_timestamps(route_v1: Route) -> None:
    approval = Decision.objects.get(kind="approve")
    Decision.objects.filter(pk=approval.pk).update(
        created_at=approval.release.created_at + timedelta(hours=2)
    )
    series = scrape()
    name = "specpact_release_decision_seconds"
    assert value(series, f"{name}_count", decision="approve") == 1
    assert value(series, f"{name}_sum", decision="approve") == pytest.approx(7200, abs=1)
    assert value(series, f"{name}_bucket", decision="approve", le="3600.0") == 0
    assert value(series, f"{name}_bucket", decision="approve", le="21600.0") == 1
    assert value(series, f"{name}_bucket", decision="approve", le="+Inf") == 1


def _endpoint(route: Route, name: str, state: str) -> Endpoint:
    return Endpoint.objects.create(
        route=route, name=name, base_url="http://127.0.0.1:9", engine="vllm", expects="active", state=state
    )


def test_endpoints_conformance_and_the_newest_acceptance_window(route_v1: Route) -> None:
    now = timezone.now()
    eu = _endpoint(route_v1, "prod-eu", "drifted")
    _endpoint(route_v1, "prod-us", "conforms")
    common = {"endpoint": eu, "source": "test"}
    AcceptanceSample.objects.create(
        taken_at=now - timedelta(minutes=10), window_acceptance_rate=0.7, **common
    )
    AcceptanceSample.objects.create(
        taken_at=now - timedelta(minutes=5), window_acceptance_rate=0.2, below_floor=True, **common
    )
    # The newest sample opened a series (a restart): no window, so the one before is the newest.
    AcceptanceSample.objects.create(taken_at=now - timedelta(minutes=1), reset=True, **common)
    assert route_v1.active_version is not None
    AcceptanceAlert.objects.create(
        endpoint=eu,
        version=route_v1.active_version,
        live_rate=0.2,
        benchmark_rate=0.6,
        min_ratio=0.5,
        windows=3,
        reason="test",
        raised_at=now,
    )
    series = scrape()
    eu_labels = {"route": route_v1.slug, "endpoint": "prod-eu"}
    assert value(series, "specpact_endpoints", state="drifted") == 1
    assert value(series, "specpact_endpoints", state="conforms") == 1
    assert value(series, "specpact_endpoints", state="unknown") == 0
    assert value(series, "specpact_endpoint_conformance", state="drifted", **eu_labels) == 1
    assert value(series, "specpact_endpoint_acceptance_rate", **eu_labels) == pytest.approx(0.2)
    assert value(series, "specpact_endpoint_acceptance_below_floor", **eu_labels) == 1
    age = value(series, "specpact_endpoint_acceptance_window_age_seconds", **eu_labels)
    assert age is not None and 290 < age < 400
    # prod-us has no window: no rate rather than a made-up 0.
    assert value(series, "specpact_endpoint_acceptance_rate", route=route_v1.slug, endpoint="prod-us") is None
    assert value(series, "specpact_acceptance_alerts", state="open") == 1


def test_runs_waiting_for_a_worker_and_worker_heartbeats(route_v1: Route, awaiting: Release) -> None:
    now = timezone.now()
    worker = register_worker("gpu-box-1")
    Worker.objects.filter(pk=worker.pk).update(last_heartbeat_at=now - timedelta(seconds=300))
    version = route_v1.active_version
    assert version is not None
    run = Run.objects.create(
        route=route_v1,
        lane="chat",
        baseline_version=version,
        candidate_version=awaiting.candidate_version,
        engine_kind="managed",
        queue="gpu-h100",
        waiting_reason="No online worker can serve it: the gpu-h100 pool.",
        waiting_since=now - timedelta(seconds=120),
    )
    OutboxMessage.objects.create(
        run=run, attempt=1, task_name="t", queue="gpu-h100", task_id="t-1", payload={}, soft_time_limit_s=1,
        time_limit_s=2,
    )  # fmt: skip
    OutboxMessage.objects.filter(run=run).update(created_at=now - timedelta(seconds=600))
    series = scrape()
    assert value(series, "specpact_runs", state="queued") == 1
    assert value(series, "specpact_runs_waiting_for_worker", queue="gpu-h100", engine="managed") == 1
    waited = value(
        series, "specpact_runs_waiting_for_worker_oldest_seconds", queue="gpu-h100", engine="managed"
    )
    assert waited is not None and 120 <= waited < 200
    heartbeat = value(
        series,
        "specpact_worker_heartbeat_age_seconds",
        worker_id=str(worker.pk),
        worker="gpu-box-1",
        hardware_class=worker.hardware_class,
    )
    assert heartbeat is not None and 300 <= heartbeat < 380
    assert value(series, "specpact_outbox_pending") == 1
    oldest = value(series, "specpact_outbox_oldest_pending_age_seconds")
    assert oldest is not None and 600 <= oldest < 680


def test_webhook_backlog_and_dead_deliveries(admin: Any) -> None:
    now = timezone.now()
    subscription = Subscription.objects.create(
        url="https://hooks.example/x", secret_encrypted="-", secret_hint="-"
    )
    for key, state in (("a", "pending"), ("b", "retrying"), ("c", "dead"), ("d", "delivered")):
        Delivery.objects.create(subscription=subscription, event="e", event_key=key, body="{}", state=state,
                                next_attempt_at=now)  # fmt: skip
    Delivery.objects.filter(event_key="b").update(created_at=now - timedelta(hours=1))
    series = scrape()
    assert value(series, "specpact_webhook_deliveries", state="pending") == 1
    assert value(series, "specpact_webhook_deliveries", state="dead") == 1
    oldest = value(series, "specpact_webhook_oldest_undelivered_age_seconds")
    assert oldest is not None and 3600 <= oldest < 3700


def test_audit_chain_status_and_checkpoint_age(route_v1: Route) -> None:
    series = scrape()
    assert ("specpact_audit_chain_valid", frozenset({("problem", "")})) not in series  # never walked yet
    assert value(series, "specpact_audit_checkpoint_age_seconds") is None
    verify_audit()
    head = AuditEvent.objects.order_by("-id").first()
    assert head is not None
    AuditCheckpoint.objects.create(
        event_id=head.pk,
        event_hash=head.hash,
        signed_at=timezone.now() - timedelta(hours=3),
        key_id="k",
        signature="s",
    )
    series = scrape()
    assert value(series, "specpact_audit_chain_valid", problem="") == 1
    walked = value(series, "specpact_audit_chain_full_check_age_seconds")
    assert walked is not None and walked < 60
    age = value(series, "specpact_audit_checkpoint_age_seconds")
    assert age is not None and 3 * 3600 <= age < 3 * 3600 + 60


def test_a_scrape_runs_the_same_queries_at_any_size(route_v1: Route) -> None:
    """One query per family, however many releases, endpoints and samples there are."""
    with assert_num_queries(QUERIES_PER_SCRAPE):
        scrape()
    now = timezone.now()
    for i in range(5):
        endpoint = _endpoint(route_v1, f"e{i}", "conforms")
        for j in range(3):
            AcceptanceSample.objects.create(
                endpoint=endpoint, source="t", taken_at=now - timedelta(minutes=j), window_acceptance_rate=0.5
            )
    register_worker("gpu-box-2")
    with assert_num_queries(QUERIES_PER_SCRAPE):
        scrape()
