"""A release's questions about its route's live endpoints (live_app, below this app): the
endpoints named at proposal, the rule that an endpoint may expect only an open release of
its route (with the candidate it then serves), and the re-probe after the benchmark.

The endpoint writes that may set `expects: release:<id>` (the API's register and change)
go through `endpoint_register` / `endpoint_change` here, which find the release's
candidate and hand it to live_app's own services."""

from __future__ import annotations

import re
from typing import Any

from contracts_app.models import ContractVersion, Route
from kernel.errors import DomainError, FieldError
from live_app.choices import ProbeState
from live_app.expects import Expects
from live_app.models import ENDPOINT_NAME_PATTERN, Endpoint
from live_app.services import endpoint_create, endpoint_update
from live_app.services.probes import endpoints_probe
from live_app.services.runs import drift_words
from releases_app.choices import ARMS
from releases_app.models import Release


def _invalid(errors: list[FieldError]) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=errors)


def _name_errors(route: Route, names: dict[str, str]) -> list[FieldError]:
    """At proposal: what is wrong with the endpoints named (unknown baseline, an endpoint
    that can't serve its arm); the candidate may be registered later."""
    malformed = [
        FieldError(f"endpoints.{arm}", "1-40 lowercase letters, digits and inner hyphens, e.g. canary")
        for arm, name in names.items()
        if not re.match(ENDPOINT_NAME_PATTERN, name)
    ]
    if malformed:
        return malformed
    found = {e.name: e for e in Endpoint.objects.filter(route=route, name__in=list(names.values()))}
    baseline = found.get(names["baseline"])
    if baseline is None:
        return [FieldError("endpoints.baseline", f"{route.slug!r} has no endpoint {names['baseline']!r}")]
    if not baseline.expectation.is_active:
        return [
            FieldError(
                "endpoints.baseline",
                f"{baseline.name} expects {baseline.expects}; "
                "the baseline endpoint serves the active version",
            )
        ]
    # The candidate may be registered later, or be one that serves something else now
    # (the canary before its redeploy): it is pointed at the release once it exists.
    return []


def checked_endpoint_names(*, route: Any, names: Any) -> dict[str, str]:
    """`{"baseline": NAME, "candidate": NAME}` as given at proposal, or a 400 naming the field."""
    if not isinstance(names, dict) or set(names) != set(ARMS):
        raise _invalid([FieldError("endpoints", 'give {"baseline": "prod-eu", "candidate": "canary"}')])
    bad = [
        FieldError(f"endpoints.{arm}", "an endpoint name") for arm in ARMS if not isinstance(names[arm], str)
    ]
    if bad:
        raise _invalid(bad)
    if names["baseline"] == names["candidate"]:
        raise _invalid([FieldError("endpoints.candidate", "must differ from the baseline endpoint")])
    errors = _name_errors(route, names)
    if errors:
        raise _invalid(errors)
    return {arm: names[arm] for arm in ARMS}


def _arm_version_id(release: Release, arm: str) -> int | None:
    return release.baseline_version_id if arm == "baseline" else release.candidate_version_id


def endpoint_drift_after(*, release: Release) -> str | None:
    """When the benchmark has ended: probe both endpoints again; the reason the results
    can't be trusted (an endpoint drifted or was deleted meanwhile), or None. None
    without a query for a release on engines the worker launched."""
    if not release.endpoints:
        return None
    # With each binding: the probes read it in threads, where no query may run.
    endpoints = Endpoint.objects.select_related("route", "auth_binding").filter(route=release.route_id)
    found = {e.name: e for e in endpoints}
    named = {arm: found.get(release.endpoints.get(arm)) for arm in ARMS}
    reasons = [
        f"the {arm} endpoint {release.endpoints.get(arm)!r} was deleted during the benchmark"
        for arm, endpoint in named.items()
        if endpoint is None
    ]
    present = {arm: e for arm, e in named.items() if e is not None}
    probes = endpoints_probe(endpoints=list(present.values()))  # both at once: one time limit
    for (arm, endpoint), probe in zip(present.items(), probes, strict=True):
        if probe.state == ProbeState.DRIFTED:
            reasons.append(drift_words(endpoint.name, probe.differences))
        elif probe.version is None or probe.version.pk != _arm_version_id(release, arm):
            reasons.append(f"{endpoint.name} no longer expects the release's {arm}")
    if not reasons:
        return None
    return "the endpoints changed during the benchmark, so its results measured another configuration: " + (
        "; ".join(reasons)
    )


def expected_candidate(*, route: Route, expects: Any) -> ContractVersion | None:
    """The release rule: for `release:<id>` naming an open release of `route`, its
    candidate (what the endpoint must then serve); None otherwise (live_app's check says
    why: `active` needs none, anything else is refused)."""
    parsed = Expects.parse(expects)
    if parsed is None or parsed.release_id is None:
        return None
    release = (
        Release.objects.open()
        .filter(route=route, pk=parsed.release_id)
        .select_related("candidate_version")
        .first()
    )
    return release.candidate_version if release is not None else None


def _route_of(route: Route | str) -> Route | None:
    return route if isinstance(route, Route) else Route.objects.filter(slug=str(route)).first()


def endpoint_register(*, route: Route | str, expects: Any = "active", **given: Any) -> Endpoint:
    """live_app's `endpoint_create`, for an `expects` that may name a release."""
    found = _route_of(route)
    version = expected_candidate(route=found, expects=expects) if found is not None else None
    return endpoint_create(route=route, expects=expects, expected_version=version, **given)


def endpoint_change(*, endpoint: Endpoint, **given: Any) -> Endpoint:
    """live_app's `endpoint_update`, for an `expects` that may name a release."""
    if "expects" in given:
        given["expected_version"] = expected_candidate(route=endpoint.route, expects=given["expects"])
    return endpoint_update(endpoint=endpoint, **given)
