"""Probing an endpoint: what version it should serve, what the engine says, the stored
probe, the endpoint's state (a change is an audit event) and an acceptance sample for the
watch. The network part runs outside any transaction and within the probe's deadline."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from contracts_app.document import validate_document
from contracts_app.models import ContractVersion
from kernel.errors import NotFound
from kernel.outbound import OutboundRefused, endpoint_policy
from live_app.choices import ProbeState
from live_app.conformance import Fetcher, Outcome, probe_engine
from live_app.models import Endpoint, Probe
from live_app.secrets import SecretUnavailable, auth_headers, endpoint_urls
from live_app.services.watch import acceptance_record


@dataclass
class Expected:
    version: ContractVersion | None
    why_none: str = ""


def expected_version(endpoint: Endpoint) -> Expected:
    """`active` → the route's active version now; `release:<id>` → that release's candidate,
    stored on the endpoint when it was pointed at the release."""
    route = endpoint.route
    release_id = endpoint.expected_release_id
    if release_id is None:
        if route.active_version_id is None:
            return Expected(None, f"{route.slug!r} has no active version yet")
        return Expected(ContractVersion.objects.get(pk=route.active_version_id))
    if endpoint.expected_version_id is None:
        return Expected(None, f"release {release_id} no longer exists")
    return Expected(ContractVersion.objects.get(pk=endpoint.expected_version_id))


def _read(endpoint: Endpoint, version: ContractVersion) -> Outcome:
    try:
        headers = auth_headers(endpoint, *endpoint_urls(endpoint))
    except SecretUnavailable as exc:
        return Outcome(state=ProbeState.UNKNOWN, reason=f"auth: {exc}", probed_at=timezone.now().isoformat())
    fetcher = Fetcher(
        endpoint_policy(),
        deadline_s=float(settings.ENDPOINT_PROBE_TIMEOUT_S),
        max_bytes=settings.ENDPOINT_PROBE_MAX_BYTES,
        headers=headers,
    )
    doc = validate_document(version.document)
    try:
        return probe_engine(
            doc,
            engine=endpoint.engine,
            base_url=endpoint.base_url,
            metrics_url=endpoint.metrics_url,
            fetcher=fetcher,
        )
    except OutboundRefused as exc:
        # The networks allowed may have narrowed since the endpoint was registered.
        return Outcome(state=ProbeState.UNKNOWN, reason=exc.detail, probed_at=timezone.now().isoformat())


def _outcome(endpoint: Endpoint, expected: Expected) -> Outcome:
    """The network part: no database access, so several can run at once in threads."""
    if expected.version is None:
        return Outcome(
            state=ProbeState.UNKNOWN, reason=expected.why_none, probed_at=timezone.now().isoformat()
        )
    return _read(endpoint, expected.version)


def _permitted(who: Actor, actor: Any, endpoint: Endpoint) -> None:
    if actor is not None:
        require_role(who, "operator")
        ensure_route_access(who, endpoint.route)


def endpoint_probe(*, endpoint: Endpoint, actor: Actor | Any = None) -> Probe:
    """Probe now and store the probe. Operators ask (a probe sends requests out); the
    scheduled probes come with no actor (the system)."""
    who = as_actor(actor)
    _permitted(who, actor, endpoint)
    expected = expected_version(endpoint)
    return _store(endpoint, expected, _outcome(endpoint, expected), who)


def endpoints_probe(*, endpoints: list[Endpoint], actor: Actor | Any = None) -> list[Probe]:
    """Probe several endpoints at once (a benchmark's two arms): the requests go out in
    parallel, so the whole takes one probe's time limit, not one per endpoint; the probes
    are stored here, in order."""
    who = as_actor(actor)
    for endpoint in endpoints:
        _permitted(who, actor, endpoint)
    expected = [expected_version(e) for e in endpoints]
    with ThreadPoolExecutor(max_workers=max(1, len(endpoints)), thread_name_prefix="probe") as pool:
        outcomes = list(pool.map(_outcome, endpoints, expected))
    return [_store(e, x, o, who) for e, x, o in zip(endpoints, expected, outcomes, strict=True)]


def _store(endpoint: Endpoint, expected: Expected, outcome: Outcome, who: Actor) -> Probe:
    probed_at = datetime.fromisoformat(outcome.probed_at)
    with transaction.atomic():
        locked = Endpoint.objects.select_for_update().select_related("route").filter(pk=endpoint.pk).first()
        if locked is None:  # deleted while it was probed
            raise NotFound(f"The endpoint {endpoint.name!r} was deleted.")
        probe = Probe.objects.create(
            endpoint=locked,
            state=outcome.state,
            version=expected.version,
            differences=outcome.differences,
            unknown=outcome.unknown,
            reason=outcome.reason[:4000],
            evidence=outcome.evidence,
            reached=outcome.reached,
            probed_at=probed_at,
        )
        before = locked.state
        locked.state, locked.last_probe = outcome.state, probe
        locked.save(update_fields=["state", "last_probe"])
        if before != outcome.state:
            audit_record(
                actor=who,
                action="drift.state_changed",
                obj_type="endpoint",
                obj_id=locked.pk,
                route=locked.route,
                before={"name": locked.name, "state": before},
                after={
                    "name": locked.name,
                    "state": outcome.state,
                    "version": expected.version.number if expected.version else None,
                    "differences": outcome.differences,
                    "reason": outcome.reason[:500],
                },
            )
    if outcome.counters is not None and expected.version is not None:
        acceptance_record(endpoint=locked, counters=outcome.counters, version=expected.version, at=probed_at)
    return probe
