"""A standalone benchmark run against two of a route's live endpoints: the baseline
endpoint serves one contract version, the candidate another. Both are probed first; a
drifted endpoint stops it with the reason (benchmarking the wrong configuration is worse
than none), and nothing is created. The run is an `openai` run like any other: the worker
runs it with its `openai` engine and the result lands like any other."""

from __future__ import annotations

from typing import Any

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from benchmarks_app.models import Run
from benchmarks_app.services.runs import run_create
from contracts_app.models import Route
from live_app.choices import ProbeState
from live_app.models import Endpoint
from live_app.services.probes import endpoint_probe
from specpact.errors import Conflict, DomainError, FieldError

ARMS = ("baseline", "candidate")


def _named(route: Route, name: Any, arm: str) -> Endpoint:
    endpoint = Endpoint.objects.select_related("route").filter(route=route, name=name).first()
    if endpoint is None:
        raise DomainError(
            "The request is invalid; see errors.",
            errors=[FieldError(arm, f"{route.slug!r} has no endpoint {name!r}")],
        )
    return endpoint


def _engine(endpoint: Endpoint, document: dict[str, Any]) -> dict[str, Any]:
    """The arm's `openai` engine: the endpoint's URL, the served model the contract names,
    and the engine shape so the harness reads that engine's counters. (An endpoint's auth
    reference stays on the control plane: runs go to endpoints the worker may reach as is.)"""
    out = {"base_url": endpoint.base_url, "model": document["target"]["model"], "server": endpoint.engine}
    if endpoint.metrics_url:
        out["metrics_url"] = endpoint.metrics_url
    return out


def drift_words(name: str, differences: list[dict[str, Any]]) -> str:
    return f"{name} drifted: " + "; ".join(
        f"{d['path']} {d.get('engine')!r} ≠ {d.get('contract')!r}" for d in differences
    )


def endpoints_run_create(
    *,
    route: Route,
    baseline: Any,
    candidate: Any,
    lane: str | None = None,
    overrides: dict[str, Any] | None = None,
    actor: Actor | Any,
    request_id: str = "",
) -> Run:
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, route)
    endpoints = {arm: _named(route, name, arm) for arm, name in zip(ARMS, (baseline, candidate), strict=True)}
    probes = {
        arm: endpoint_probe(endpoint=e, actor=who, request_id=request_id) for arm, e in endpoints.items()
    }
    drifted = [
        drift_words(endpoints[arm].name, probe.differences)
        for arm, probe in probes.items()
        if probe.state == ProbeState.DRIFTED
    ]
    if drifted:
        raise Conflict(
            "Not benchmarked: " + "; ".join(drifted) + ". Benchmarking the wrong configuration is worse "
            "than none: bring the endpoint back to its contract, or register the contract it runs.",
            code="endpoint_drifted",
        )
    versions = {arm: probe.version for arm, probe in probes.items()}
    for arm, version in versions.items():
        if version is None:
            raise Conflict(f"{endpoints[arm].name}: {probes[arm].reason}", code="endpoint_expects_nothing")
    given = {arm: _engine(endpoints[arm], versions[arm].document) for arm in ARMS}  # type: ignore[union-attr]
    return run_create(
        route=route,
        baseline=versions["baseline"],  # type: ignore[arg-type]
        candidate=versions["candidate"],  # type: ignore[arg-type]
        lane=lane,
        actor=who,
        engine_kind="openai",
        endpoints=given,
        overrides=overrides,
        request_id=request_id,
    )
