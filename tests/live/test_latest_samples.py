"""`live_app.selectors.latest_samples`: each endpoint's newest samples, oldest first, with
`taken_at` as the text `datetime.isoformat()` gives in UTC (what the live chart draws), on
PostgreSQL formatted in SQL, on SQLite in Python."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from contracts_app.models import Route
from live_app.models import AcceptanceSample, Endpoint
from live_app.selectors import latest_samples

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
    assert latest_samples([], 500) == {}
