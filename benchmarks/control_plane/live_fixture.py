"""Live endpoints with a month of acceptance samples on the benchmarked route (issue 26's
"route page, 126 versions + live endpoints"): the generator writes no live data, and the
route page's live section (its per-endpoint latest samples, three charts) is one of the
costs the issue names. Idempotent: a second run finds the endpoints and their samples.

Three endpoints (the live deployment, a canary, a second region), each probed once
(conforms, to the route's active version) and scraped once a minute for 30 days:
3 × 43,200 = 129,600 samples, the issue's figure."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from contracts_app.models import Route

NAMES = ("prod", "canary", "prod-eu")
SAMPLES_PER_ENDPOINT = 30 * 24 * 60  # once a minute for 30 days


def ensure_live_endpoints(route: Route) -> int:
    """The endpoints and their samples on `route`; returns the route's sample count."""
    from live_app.models import AcceptanceSample, Endpoint, Probe

    now = timezone.now().replace(second=0, microsecond=0)
    with transaction.atomic():
        for name in NAMES:
            endpoint, created = Endpoint.objects.get_or_create(
                route=route,
                name=name,
                defaults={
                    "base_url": f"http://{name}.bench.invalid:8000",
                    "engine": "vllm",
                    "expects": "active",
                    "state": "conforms",
                },
            )
            if created or endpoint.last_probe_id is None:
                probe = Probe.objects.create(
                    endpoint=endpoint, state="conforms", version=route.active_version, probed_at=now
                )
                Endpoint.objects.filter(pk=endpoint.pk).update(last_probe=probe, state="conforms")
            if AcceptanceSample.objects.filter(endpoint=endpoint).count() >= SAMPLES_PER_ENDPOINT:
                continue
            AcceptanceSample.objects.filter(endpoint=endpoint).delete()
            # One statement per endpoint: cumulative counters that grow every minute, and the
            # minute's window (about 0.6-0.8 accepted), as the scraper stores them.
            with connection.cursor() as cursor:
                cursor.execute(
                    """
                    INSERT INTO live_app_acceptancesample
                        (endpoint_id, taken_at, source, draft_tokens, accepted_tokens, drafts, reset,
                         window_draft_tokens, window_acceptance_rate, window_mean_acceptance_length,
                         below_floor, engine_off)
                    SELECT %s, %s - (n * interval '1 minute'), 'metrics',
                           (%s - n) * 3000.0, (%s - n) * 2100.0, (%s - n) * 1000.0, false,
                           3000.0, 0.6 + 0.2 * ((n %% 97) / 97.0), 3.1, false, false
                    FROM generate_series(0, %s - 1) AS n
                    """,
                    [
                        endpoint.pk,
                        now,
                        SAMPLES_PER_ENDPOINT,
                        SAMPLES_PER_ENDPOINT,
                        SAMPLES_PER_ENDPOINT,
                        SAMPLES_PER_ENDPOINT,
                    ],
                )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE live_app_acceptancesample")
    cutoff = now - timedelta(days=31)
    return AcceptanceSample.objects.filter(endpoint__route=route, taken_at__gte=cutoff).count()
