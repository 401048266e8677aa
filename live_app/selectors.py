"""live_app's reads."""

from __future__ import annotations

from django.db.models import QuerySet

from benchmarks_app.models import RunResult
from contracts_app.models import ContractVersion, Route
from live_app.models import Endpoint
from releases_app.choices import ReleaseState

APPROVED_STATES = (
    ReleaseState.APPROVED,
    ReleaseState.ACTIVE,
    ReleaseState.ROLLED_BACK,
    ReleaseState.SUPERSEDED,
)


def endpoints_of(route: Route) -> QuerySet[Endpoint]:
    return Endpoint.objects.filter(route=route).select_related("last_probe", "last_probe__version")


def endpoint_get(route: Route, name: str) -> Endpoint | None:
    return endpoints_of(route).filter(name=name).first()


def benchmark_acceptance(version: ContractVersion) -> float | None:
    """The acceptance rate the benchmark measured for `version` as a candidate, in the
    release that approved it: the mean over its runs' levels that report one."""
    results = RunResult.objects.filter(
        run__candidate_version=version, run__release__state__in=APPROVED_STATES
    ).values_list("aggregates", flat=True)
    rates = [
        level["scalars"]["acceptance_rate"]
        for aggregates in results
        for level in (aggregates or {}).get("candidate") or []
        if isinstance((level.get("scalars") or {}).get("acceptance_rate"), (int, float))
    ]
    return sum(rates) / len(rates) if rates else None
