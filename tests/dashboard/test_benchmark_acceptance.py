"""`live_app.selectors.benchmark_acceptance`, the reference line of the route page's live
charts and of the acceptance watch: the mean of the candidate levels' acceptance rates over
the approving release's runs, read in SQL on PostgreSQL, equal to the same mean taken over
the decoded aggregates, levels without a number left out."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks_app.models import RunResult
from live_app.selectors import benchmark_acceptance
from releases_app.models import Release
from releases_app.services import release_approve

pytestmark = pytest.mark.django_db


def _mean_in_python(release: Release) -> float | None:
    rates = [
        level["scalars"]["acceptance_rate"]
        for aggregates in RunResult.objects.filter(run__release=release).values_list("aggregates", flat=True)
        for level in (aggregates or {}).get("candidate") or []
        if isinstance((level.get("scalars") or {}).get("acceptance_rate"), (int, float))
    ]
    return sum(rates) / len(rates) if rates else None


def test_it_is_the_mean_of_the_candidate_levels_rates(benchmarked: Release, second_approver: Any) -> None:
    version = benchmarked.candidate_version
    assert benchmark_acceptance(version) is None  # not approved yet: no reference
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    expected = _mean_in_python(benchmarked)
    assert expected is not None
    assert benchmark_acceptance(version) == pytest.approx(expected, rel=1e-12)


def test_levels_without_a_number_are_left_out(benchmarked: Release, second_approver: Any) -> None:
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    results = list(RunResult.objects.filter(run__release=benchmarked).order_by("pk"))
    odd = results[0].aggregates
    odd["candidate"] = [
        {"scalars": {"acceptance_rate": 0.25}},
        {"scalars": {"acceptance_rate": None}},
        {"scalars": {"acceptance_rate": "0.9"}},
        {"scalars": {}},
        {},
    ]
    RunResult.objects.filter(pk=results[0].pk).update(aggregates=odd)
    for other in results[1:]:
        RunResult.objects.filter(pk=other.pk).update(aggregates={"candidate": None})
    assert benchmark_acceptance(benchmarked.candidate_version) == pytest.approx(0.25)
    RunResult.objects.filter(pk=results[0].pk).update(aggregates={})
    assert benchmark_acceptance(benchmarked.candidate_version) is None
