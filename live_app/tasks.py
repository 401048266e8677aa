"""The control-plane worker's probes: a probe someone asked for (API, page), and beat's
scheduled probes of every endpoint (with their acceptance samples), ENDPOINT_PROBE_CONCURRENCY
at a time. Each probe ends within ENDPOINT_PROBE_TIMEOUT_S; one endpoint's failure is its
own state (`unknown` with the reason), never the others'."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from kernel.task_retry import redelivered_task_options
from live_app.models import AcceptanceSample, Endpoint, Probe, ProbeRequest
from live_app.services.probe_requests import PROBE_REQUEST_TASK, probe_request_run
from live_app.services.probes import endpoints_probe_bounded

log = logging.getLogger(__name__)


@shared_task(
    name=PROBE_REQUEST_TASK,
    ignore_result=True,
    # A redelivered request probes again (`probe_request_run` claims it; a finished one is
    # a no-op).
    **redelivered_task_options(max_retries=5, retry_backoff_max=60),
    # The probe ends by its own deadline; this only catches what it does not bound (DNS).
    soft_time_limit=settings.ENDPOINT_PROBE_TIMEOUT_S + 30,
    time_limit=settings.ENDPOINT_PROBE_TIMEOUT_S + 60,
)
def probe_request_task(request_id: int) -> str:
    return probe_request_run(request_id=request_id)


@shared_task(name="live_app.probe_endpoints", ignore_result=True)
def probe_endpoints() -> int:
    endpoints = Endpoint.objects.select_related("route").order_by("id")
    done = len(endpoints_probe_bounded(endpoints=endpoints, concurrency=settings.ENDPOINT_PROBE_CONCURRENCY))
    history_prune()
    return done


def history_prune() -> int:
    """Delete probes and samples past ENDPOINT_HISTORY_DAYS; each endpoint keeps its last
    probe. Alerts and the audit trail keep what mattered."""
    cutoff = timezone.now() - timedelta(days=settings.ENDPOINT_HISTORY_DAYS)
    kept = Endpoint.objects.exclude(last_probe=None).values("last_probe")
    probes, _ = Probe.objects.filter(probed_at__lt=cutoff).exclude(pk__in=kept).delete()
    samples, _ = AcceptanceSample.objects.filter(taken_at__lt=cutoff).delete()
    asked, _ = ProbeRequest.objects.filter(requested_at__lt=cutoff).delete()
    return probes + samples + asked
