"""A prometheus-client Collector that reads the database at each scrape (custom
collectors: https://prometheus.github.io/client_python/collector/custom/, release 0.26).
Nothing is counted in a process, so every web worker answers alike. A database that
cannot answer gives `specpact_up 0` and the error's class, not a failed scrape."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime

from django.db import DatabaseError
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from benchmarks_app.choices import RunState
from live_app.choices import AlertState, ProbeState
from observability_app import selectors
from releases_app.choices import ReleaseState
from webhooks_app.models import DeliveryState

logger = logging.getLogger(__name__)


def _age(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else max(0.0, (now - then).total_seconds())


def _states(name: str, doc: str, label: str, states: list[str], counts: dict[str, int]) -> GaugeMetricFamily:
    """A gauge per named state, zeros included, so a rule can compare to 0."""
    g = GaugeMetricFamily(name, doc, labels=[label])
    for state in states:
        g.add_metric([state], counts.get(state, 0))
    return g


class SpecPactCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        try:
            families = list(self._families(timezone.now()))
        except DatabaseError as exc:
            logger.warning("metrics: the database did not answer: %s", exc)
            yield GaugeMetricFamily(
                "specpact_up", "1 when SpecPact's database answered this scrape.", value=0
            )
            err = GaugeMetricFamily(
                "specpact_scrape_error", "Why the last scrape could not read the database.", labels=["error"]
            )
            err.add_metric([type(exc).__name__], 1)
            yield err
            return
        yield GaugeMetricFamily("specpact_up", "1 when SpecPact's database answered this scrape.", value=1)
        yield from families

    def _families(self, now: datetime) -> Iterator[Metric]:
        yield _states(
            "specpact_releases",
            "Releases by state.",
            "state",
            list(ReleaseState.values),
            selectors.releases_by_state(),
        )
        checks = GaugeMetricFamily(
            "specpact_gate_checks",
            "Checks of stored gate results (a rule at a lane and level) by rule, lane and verdict.",
            labels=["rule", "lane", "verdict"],
        )
        for (rule, lane, verdict), n in sorted(selectors.gate_checks_by_rule_and_lane().items()):
            checks.add_metric([rule, lane, verdict], n)
        yield checks
        yield from self._decisions()
        yield from self._endpoints(now)
        yield _states(
            "specpact_acceptance_alerts",
            "Live acceptance alerts raised, by state (open: no rollback proposed yet).",
            "state",
            list(AlertState.values),
            selectors.acceptance_alerts_by_state(),
        )
        yield from self._runs(now)
        yield from self._delivery(now)
        yield from self._audit(now)

    def _decisions(self) -> Iterator[Metric]:
        h = HistogramMetricFamily(
            "specpact_release_decision_seconds",
            "Time from a release's proposal to its approval or rejection, by decision.",
            labels=["decision"],
        )
        for row in selectors.decision_times():
            buckets = [
                (str(float(b)), n) for b, n in zip(selectors.DECISION_BUCKETS_S, row.buckets, strict=True)
            ]
            h.add_metric([row.kind], [*buckets, ("+Inf", row.count)], row.sum_s)
        yield h

    def _endpoints(self, now: datetime) -> Iterator[Metric]:
        rows = selectors.endpoints_with_latest_window()
        counts: dict[str, int] = {}
        for row in rows:
            counts[row.state] = counts.get(row.state, 0) + 1
        yield _states(
            "specpact_endpoints",
            "Live endpoints by conformance state.",
            "state",
            list(ProbeState.values),
            counts,
        )
        conformance = GaugeMetricFamily(
            "specpact_endpoint_conformance",
            "1 for each endpoint's current conformance state (conforms, drifted, unknown).",
            labels=["route", "endpoint", "state"],
        )
        rate = GaugeMetricFamily(
            "specpact_endpoint_acceptance_rate",
            "The endpoint's newest live acceptance window (accepted / drafted tokens).",
            labels=["route", "endpoint"],
        )
        below = GaugeMetricFamily(
            "specpact_endpoint_acceptance_below_floor",
            "1 when the newest window was below the contract's floor (its rollback trigger's min_ratio"
            " times the benchmarked acceptance).",
            labels=["route", "endpoint"],
        )
        age = GaugeMetricFamily(
            "specpact_endpoint_acceptance_window_age_seconds",
            "Seconds since the endpoint's newest acceptance window was taken.",
            labels=["route", "endpoint"],
        )
        for row in rows:
            labels = [row.route, row.endpoint]
            conformance.add_metric([*labels, row.state], 1)
            if row.acceptance_rate is not None:
                rate.add_metric(labels, row.acceptance_rate)
                below.add_metric(labels, 1 if row.below_floor else 0)
            sampled = _age(now, row.sampled_at)
            if sampled is not None:
                age.add_metric(labels, sampled)
        yield from (conformance, rate, below, age)

    def _runs(self, now: datetime) -> Iterator[Metric]:
        yield _states(
            "specpact_runs",
            "Benchmark runs by state.",
            "state",
            list(RunState.values),
            selectors.runs_by_state(),
        )
        waiting = GaugeMetricFamily(
            "specpact_runs_waiting_for_worker",
            "Queued runs no online worker can serve, by the queue (pool) and engine they need.",
            labels=["queue", "engine"],
        )
        oldest = GaugeMetricFamily(
            "specpact_runs_waiting_for_worker_oldest_seconds",
            "How long the longest-waiting of those runs has waited.",
            labels=["queue", "engine"],
        )
        for row in selectors.runs_waiting_for_worker():
            waiting.add_metric([row.queue, row.engine], row.count)
            waited = _age(now, row.oldest)
            if waited is not None:
                oldest.add_metric([row.queue, row.engine], waited)
        yield from (waiting, oldest)
        heartbeat = GaugeMetricFamily(
            "specpact_worker_heartbeat_age_seconds",
            "Seconds since each registered (not revoked) worker's last heartbeat.",
            labels=["worker_id", "worker", "hardware_class"],
        )
        silent = 0
        for pk, name, hardware, last in selectors.workers_heartbeats():
            seconds = _age(now, last)
            if seconds is None:
                silent += 1
            else:
                heartbeat.add_metric([str(pk), name, hardware], seconds)
        yield heartbeat
        yield GaugeMetricFamily(
            "specpact_workers_never_heartbeat",
            "Registered workers that have not sent a heartbeat yet.",
            value=silent,
        )

    def _delivery(self, now: datetime) -> Iterator[Metric]:
        outbox = selectors.outbox_backlog()
        yield GaugeMetricFamily(
            "specpact_outbox_pending",
            "Benchmark dispatches not yet published to the broker.",
            value=outbox.count,
        )
        yield GaugeMetricFamily(
            "specpact_outbox_oldest_pending_age_seconds",
            "Age of the oldest unpublished dispatch (0 when none is pending).",
            value=_age(now, outbox.oldest) or 0.0,
        )
        by_state, oldest = selectors.webhook_deliveries()
        yield _states(
            "specpact_webhook_deliveries",
            "Webhook deliveries by state (pending and retrying are the backlog; dead gave up).",
            "state",
            list(DeliveryState.values),
            by_state,
        )
        yield GaugeMetricFamily(
            "specpact_webhook_oldest_undelivered_age_seconds",
            "Age of the oldest pending or retrying webhook delivery (0 when none).",
            value=_age(now, oldest) or 0.0,
        )

    def _audit(self, now: datetime) -> Iterator[Metric]:
        health = selectors.audit_health()
        valid = GaugeMetricFamily(
            "specpact_audit_chain_valid",
            "1 when the last full walk of the audit chain verified, 0 when it found a break"
            " (absent before the first walk).",
            labels=["problem"],
        )
        if health.valid is not None:
            valid.add_metric([health.problem or ""], 1 if health.valid else 0)
        yield valid
        walked = GaugeMetricFamily(
            "specpact_audit_chain_full_check_age_seconds",
            "Seconds since the whole audit chain was last walked.",
        )
        if (seconds := _age(now, health.full_at)) is not None:
            walked.add_metric([], seconds)
        yield walked
        checkpoint = GaugeMetricFamily(
            "specpact_audit_checkpoint_age_seconds", "Seconds since the newest signed audit checkpoint."
        )
        if (seconds := _age(now, health.last_checkpoint_at)) is not None:
            checkpoint.add_metric([], seconds)
        yield checkpoint
