"""Probing an endpoint: what version it should serve, what the engine says, the stored
probe (with who asked: a user, a token, or the scheduled probes' `beat`), the endpoint's
state (a change is an audit event) and an acceptance sample for the watch. The network
part runs outside any transaction and within the probe's one deadline, in the caller's
thread (kernel/outbound.py), so a probe leaves no thread behind.

Web requests never probe here: they ask for a probe (`live_app.services.probe_requests`)
that the control-plane worker runs."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
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
from live_app.metrics_host import metrics_host_refusal
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
            # Stored before the rule, or the rule narrowed since: not read, and said why.
            metrics_refused=metrics_host_refusal(
                endpoint.base_url, endpoint.metrics_url, allowed=endpoint.metrics_host_allowed
            )
            or "",
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


# Who the scheduled probes are, on the probe and in its audit events.
BEAT = Actor.system("beat")


def endpoint_probe(*, endpoint: Endpoint, actor: Actor | Any = None, checked: bool = False) -> Probe:
    """Probe now, in this thread, and store the probe. Operators ask (a probe sends
    requests out); no actor is the scheduled probes (`BEAT`); `checked`: the actor's
    permission was checked when they asked (a probe request). For the control-plane
    worker and the scheduled probes: a web request asks for a probe instead."""
    who = as_actor(actor) if actor is not None else BEAT
    if not checked:
        _permitted(who, actor, endpoint)
    expected = expected_version(endpoint)
    return _store(endpoint, expected, _outcome(endpoint, expected), who)


def endpoints_probe_bounded(*, endpoints: Iterable[Endpoint], concurrency: int) -> list[Probe]:
    """The scheduled probes: up to `concurrency` endpoints probed at once, each within its
    own deadline, and each stored as soon as it ends, so a stalling endpoint holds one slot
    for its deadline and delays no other (unless `concurrency` of them stall together).
    Stored in this thread: the pool's threads only send requests, and end with them."""
    probes: list[Probe] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="probe") as pool:
        running: dict[Future[Outcome], tuple[Endpoint, Expected]] = {}
        for endpoint in endpoints:
            expected = expected_version(endpoint)
            running[pool.submit(_outcome, endpoint, expected)] = (endpoint, expected)
        for done in as_completed(running):
            endpoint, expected = running[done]
            try:
                probes.append(_store(endpoint, expected, done.result(), BEAT))
            except NotFound:
                continue  # deleted while it was probed
    return probes


def endpoints_probe(*, endpoints: list[Endpoint], actor: Actor | Any = None) -> list[Probe]:
    """Probe several endpoints at once (a benchmark's two arms): the requests go out in
    parallel, so the whole takes one probe's time limit, not one per endpoint; the probes
    are stored here, in order."""
    who = as_actor(actor) if actor is not None else BEAT
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
            facts=outcome.facts,
            coverage=outcome.coverage[:4000],
            probed_at=probed_at,
            actor=who.label,
            requested_by=who.user,
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
                    "probe": probe.pk,
                    "state": outcome.state,
                    "version": expected.version.number if expected.version else None,
                    "differences": outcome.differences,
                    "reason": outcome.reason[:500],
                },
            )
    if outcome.counters is not None and expected.version is not None:
        acceptance_record(endpoint=locked, counters=outcome.counters, version=expected.version, at=probed_at)
    return probe
