"""The route page's live reads (live_app/selectors.py), one query each for any number of
endpoints: `latest_samples` (each endpoint's newest samples, oldest first, `taken_at` as the
text `datetime.isoformat()` gives in UTC, what the live chart draws), `recent_alerts` (the
newest first, at most the limit) and `pending_requests` (the newest request still queued or
running, asked since the cut-off)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from contracts_app.models import Route
from live_app.models import AcceptanceAlert, AcceptanceSample, Endpoint, ProbeRequest
from live_app.selectors import latest_samples, pending_requests, recent_alerts
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


def _endpoint(route: Route, name: str) -> Endpoint:
    return Endpoint.objects.create(
        route=route, name=name, base_url=f"http://{name}.invalid:8000", engine="vllm"
    )


def test_the_newest_samples_come_oldest_first_with_their_times_as_isoformat(route_v1: Route) -> None:
    prod, canary = _endpoint(route_v1, "prod"), _endpoint(route_v1, "canary")
    start = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    times = [
        start,
        start + timedelta(minutes=1, microseconds=120),  # a fraction is kept, to the microsecond
        start + timedelta(minutes=2, seconds=59, microseconds=999_999),
        # Stored as any instant: read back in UTC.
        datetime(2026, 12, 3, 12, 3, 4, 500_000, tzinfo=timezone(timedelta(hours=2))),
        start + timedelta(hours=3),
    ]
    for i, when in enumerate(times):
        AcceptanceSample.objects.create(
            endpoint=prod, taken_at=when, source="metrics", window_acceptance_rate=i / 10, reset=i == 1
        )
    AcceptanceSample.objects.create(endpoint=canary, taken_at=start, source="metrics")
    stored = [s.taken_at for s in AcceptanceSample.objects.filter(endpoint=prod).order_by("taken_at")]

    got = latest_samples([prod.pk, canary.pk], 4)

    assert got[prod.pk] == [
        (when.astimezone(UTC).isoformat(), rate, reset)
        for when, rate, reset in zip(
            stored[1:], [0.1, 0.2, 0.3, 0.4], [True, False, False, False], strict=True
        )
    ]
    assert got[prod.pk][2][0] == "2026-12-03T10:03:04.500000+00:00"
    assert got[prod.pk][3][0] == "2026-12-03T13:00:00+00:00"
    assert got[canary.pk] == [("2026-12-03T10:00:00+00:00", None, False)]


def test_no_endpoints_read_nothing() -> None:
    with assert_num_queries(0):
        assert latest_samples([], 500) == {}
        assert recent_alerts([], 20) == {}
        assert pending_requests([], datetime(2026, 1, 1, tzinfo=UTC)) == {}


def test_each_endpoint_gets_its_newest_alerts_up_to_the_limit(route_v1: Route) -> None:
    prod, canary, quiet = (_endpoint(route_v1, n) for n in ("prod", "canary", "quiet"))
    start = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    for endpoint, count in ((prod, 5), (canary, 2)):
        for i in range(count):
            AcceptanceAlert.objects.create(
                endpoint=endpoint,
                version=route_v1.active_version,
                live_rate=0.1 * i,
                benchmark_rate=0.7,
                min_ratio=0.8,
                windows=3,
                reason=f"{endpoint.name} {i}",
                raised_at=start + timedelta(minutes=i),
            )
    with assert_num_queries(1):
        got = recent_alerts([prod.pk, canary.pk, quiet.pk], 3)
    assert [a.reason for a in got[prod.pk]] == ["prod 4", "prod 3", "prod 2"]
    assert [a.reason for a in got[canary.pk]] == ["canary 1", "canary 0"]
    assert got[quiet.pk] == []


def test_the_pending_request_is_the_newest_still_queued_or_running_since_the_cut_off(
    route_v1: Route,
) -> None:
    prod, canary, done = (_endpoint(route_v1, n) for n in ("prod", "canary", "done"))
    now = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)

    def ask(endpoint: Endpoint, state: str, minutes_ago: int) -> ProbeRequest:
        request = ProbeRequest.objects.create(endpoint=endpoint, state=state, actor="olga")
        ProbeRequest.objects.filter(pk=request.pk).update(requested_at=now - timedelta(minutes=minutes_ago))
        return request

    ask(prod, "queued", 3)
    newest = ask(prod, "running", 1)
    ask(canary, "queued", 30)  # before the cut-off: no longer waited for
    ask(done, "done", 1)
    with assert_num_queries(1):
        got = pending_requests([prod.pk, canary.pk, done.pk], now - timedelta(minutes=10))
    assert list(got) == [prod.pk] and got[prod.pk].pk == newest.pk and got[prod.pk].state == "running"
