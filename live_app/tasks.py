"""Beat's scheduled probes: every endpoint probed (and its acceptance sampled) in turn.
Each probe ends within ENDPOINT_PROBE_TIMEOUT_S; one endpoint's failure is its own state
(`unknown` with the reason), never the others'."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from kernel.errors import DomainError
from live_app.models import AcceptanceSample, Endpoint, Probe
from live_app.services import endpoint_probe

log = logging.getLogger(__name__)


@shared_task(name="live_app.probe_endpoints", ignore_result=True)
def probe_endpoints() -> int:
    done = 0
    for pk in Endpoint.objects.order_by("id").values_list("id", flat=True):
        endpoint = Endpoint.objects.select_related("route").filter(pk=pk).first()
        if endpoint is None:
            continue  # deleted meanwhile
        try:
            endpoint_probe(endpoint=endpoint)
            done += 1
        except DomainError as exc:
            log.warning("probe of endpoint %s failed: %s", pk, exc.detail)
    history_prune()
    return done


def history_prune() -> int:
    """Delete probes and samples past ENDPOINT_HISTORY_DAYS; each endpoint keeps its last
    probe. Alerts and the audit trail keep what mattered."""
    cutoff = timezone.now() - timedelta(days=settings.ENDPOINT_HISTORY_DAYS)
    kept = Endpoint.objects.exclude(last_probe=None).values("last_probe")
    probes, _ = Probe.objects.filter(probed_at__lt=cutoff).exclude(pk__in=kept).delete()
    samples, _ = AcceptanceSample.objects.filter(taken_at__lt=cutoff).delete()
    return probes + samples
