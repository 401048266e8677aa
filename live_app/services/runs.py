"""A standalone benchmark run against two of a route's live endpoints: the baseline
endpoint serves one contract version, the candidate another. Both are probed first; a
drifted endpoint stops it with the reason (benchmarking the wrong configuration is worse
than none), and nothing is created. The run is an `openai` run like any other: the worker
runs it with its `openai` engine and the result lands like any other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from benchmarks_app.models import Run
from benchmarks_app.services.runs import run_create
from contracts_app.models import ContractVersion, Route
from kernel.errors import Conflict, DomainError, FieldError
from live_app.choices import ProbeState
from live_app.models import Endpoint, Probe
from live_app.secrets import binding_spec
from live_app.services.probes import endpoints_probe
from worker import spec

# worker.spec's, as plain names: the live services key their dicts by str.
ARMS: tuple[str, ...] = spec.ARMS


def endpoint_named(route: Route, name: Any, arm: str) -> Endpoint:
    endpoint = Endpoint.objects.select_related("route", "auth_binding").filter(route=route, name=name).first()
    if endpoint is None:
        raise DomainError(
            "The request is invalid; see errors.",
            errors=[FieldError(arm, f"{route.slug!r} has no endpoint {name!r}")],
        )
    return endpoint


def arm_engine(endpoint: Endpoint, document: dict[str, Any], *, actor: Actor) -> dict[str, Any]:
    """The arm's `openai` engine: the endpoint's URL, the served model the contract names,
    and the engine shape so the harness reads that engine's counters. The endpoint's secret
    binding goes as the binding (where to read it, the hosts it may go to), only for a
    requester whose scope owns its route: the worker reads the secret from its own
    environment or files (worker/harness/endpoint_auth.py), so no secret is stored in the
    run or the broker."""
    out = {"base_url": endpoint.base_url, "model": document["target"]["model"], "server": endpoint.engine}
    if endpoint.metrics_url:
        out["metrics_url"] = endpoint.metrics_url
    binding = endpoint.auth_binding
    if binding is not None:
        ensure_route_access(actor, binding.route)
        out["auth_binding"] = binding_spec(binding)
    return out


def drift_words(name: str, differences: list[dict[str, Any]]) -> str:
    return f"{name} drifted: " + "; ".join(
        f"{d['path']} {d.get('engine')!r} ≠ {d.get('contract')!r}" for d in differences
    )


@dataclass
class Arm:
    endpoint: Endpoint
    probe: Probe

    @property
    def version(self) -> ContractVersion:
        assert self.probe.version is not None  # probed_arms refuses a probe without one
        return self.probe.version


def probed_arms(endpoints: dict[str, Endpoint], *, actor: Actor) -> dict[str, Arm]:
    """Probe each arm's endpoint now. A drifted one refuses the benchmark (409 naming each
    field that differs): benchmarking the wrong configuration is worse than none. One that
    could not be read at all refuses it too (its requests would only fail). An `unknown` one
    that answered goes ahead (TGI reports no speculation settings at all); its probe says why."""
    probes = endpoints_probe(endpoints=list(endpoints.values()), actor=actor)
    arms = {arm: Arm(e, probe) for (arm, e), probe in zip(endpoints.items(), probes, strict=True)}
    drifted = [
        drift_words(a.endpoint.name, a.probe.differences)
        for a in arms.values()
        if a.probe.state == ProbeState.DRIFTED
    ]
    if drifted:
        raise Conflict(
            "Not benchmarked: " + "; ".join(drifted) + ". Benchmarking the wrong configuration is worse "
            "than none: bring the endpoint back to its contract, or register the contract it runs.",
            code="endpoint_drifted",
        )
    for a in arms.values():
        if a.probe.version is None:
            raise Conflict(f"{a.endpoint.name}: {a.probe.reason}", code="endpoint_expects_nothing")
    unread = [
        f"{a.endpoint.name} could not be read ({a.probe.reason})"
        for a in arms.values()
        if not a.probe.reached
    ]
    if unread:
        raise Conflict(
            "Not benchmarked: " + "; ".join(unread) + ". Its requests would only fail: check that the "
            "endpoint is up and reachable from SpecPact, then try again.",
            code="endpoint_unreachable",
        )
    return arms


def endpoints_run_create(
    *,
    route: Route,
    baseline: Any,
    candidate: Any,
    lane: str | None = None,
    overrides: dict[str, Any] | None = None,
    actor: Actor | Any,
) -> Run:
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, route)
    endpoints = {
        arm: endpoint_named(route, name, arm) for arm, name in zip(ARMS, (baseline, candidate), strict=True)
    }
    arms = probed_arms(endpoints, actor=who)
    given = {arm: arm_engine(a.endpoint, a.version.document, actor=who) for arm, a in arms.items()}
    return run_create(
        route=route,
        baseline=arms["baseline"].version,
        candidate=arms["candidate"].version,
        lane=lane,
        actor=who,
        engine_kind="openai",
        endpoints=given,
        overrides=overrides,
    )
