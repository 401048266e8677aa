"""A probe asked for through the API or the page: recorded (who asked, audited), sent to
the control-plane worker (`live_app.tasks.probe_request_task`), and run there within the
probe's deadline. A web worker never waits on an engine: the API waits at most
ENDPOINT_PROBE_WAIT_S for the request's row to say done, then answers 202 with where to
read it."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from benchmarks_app.broker import publisher_app
from kernel.errors import DomainError, NotFound
from live_app.choices import ProbeRequestState
from live_app.models import Endpoint, ProbeRequest
from live_app.services.probes import endpoint_probe

log = logging.getLogger(__name__)

PROBE_REQUEST_TASK = "live_app.probe_request"

# One try to publish: a web request must not wait for a broker that is down.
_ONE_TRY: dict[str, float] = {"max_retries": 0, "interval_start": 0}


class BrokerUnavailable(DomainError):
    def __init__(self) -> None:
        super().__init__(
            detail="The probe could not be queued: the control plane's task broker is unreachable. "
            "Nothing was probed; try again when it is back.",
            status=503,
            code="broker_unavailable",
        )


def endpoint_probe_request(*, endpoint: Endpoint, actor: Actor | Any) -> ProbeRequest:
    """Ask for a probe of `endpoint` (operators): the request is stored and audited, then
    sent to the control-plane worker. Raises BrokerUnavailable (503) when it can't be
    sent; the request is then `failed` with that reason."""
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, endpoint.route)
    with transaction.atomic():
        asked = ProbeRequest.objects.create(endpoint=endpoint, actor=who.label, requested_by=who.user)
        audit_record(
            actor=who,
            action="probe.requested",
            obj_type="endpoint",
            obj_id=endpoint.pk,
            route=endpoint.route,
            after={"name": endpoint.name, "request": asked.pk},
        )
    try:
        publish(asked.pk)  # after the commit: the worker must find the row
    except Exception:
        log.exception("sending probe request %s failed", asked.pk)
        _finish(asked.pk, ProbeRequestState.FAILED, reason="the task broker was unreachable; not probed")
        raise BrokerUnavailable() from None
    asked.refresh_from_db()
    return asked


def publish(request_id: int) -> None:
    publisher_app().send_task(
        PROBE_REQUEST_TASK,
        args=[request_id],
        queue=settings.CONTROL_PLANE_QUEUE,
        routing_key=settings.CONTROL_PLANE_QUEUE,
        retry=True,
        retry_policy=_ONE_TRY,
    )


def probe_request_run(*, request_id: int) -> str:
    """Run a requested probe (the control-plane worker); what it did, in words. Claimed
    with a conditional update, so a second delivery of a finished request is a no-op; a
    redelivery after a worker died mid-probe (`running`) probes again."""
    claimed = ProbeRequest.objects.filter(
        pk=request_id, state__in=(ProbeRequestState.QUEUED, ProbeRequestState.RUNNING)
    ).update(state=ProbeRequestState.RUNNING, started_at=timezone.now())
    if not claimed:
        return f"probe request {request_id} is gone or finished: nothing to do"
    asked = ProbeRequest.objects.select_related("endpoint__route", "requested_by").get(pk=request_id)
    # The asker's permission was checked when they asked; the probe records them.
    who = Actor(label=asked.actor, user=asked.requested_by)
    try:
        probe = endpoint_probe(endpoint=asked.endpoint, actor=who, checked=True)
    except NotFound:
        _finish(request_id, ProbeRequestState.FAILED, reason="the endpoint was deleted")
        return f"probe request {request_id}: the endpoint was deleted"
    _finish(request_id, ProbeRequestState.DONE, probe_id=probe.pk)
    return f"probe request {request_id}: {probe.state}"


def _finish(request_id: int, state: str, *, reason: str = "", probe_id: int | None = None) -> None:
    ProbeRequest.objects.filter(pk=request_id).update(
        state=state, reason=reason, probe_id=probe_id, finished_at=timezone.now()
    )
