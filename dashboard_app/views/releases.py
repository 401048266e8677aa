"""The release page: what changes, the live endpoints it is benchmarked on, the benchmark's
evidence, the timeline, and the decision forms the person may use; and its progress partial
(htmx, polled while runs are queued or running). The decisions themselves are posted to
releases_app's views; the benchmark on live endpoints is posted here, because starting it
is live_app's service and releases_app sits below live_app (it may not import it)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from contracts_app.views.diff_table import side_by_side
from dashboard_app.selectors.evidence import progress_context, release_evidence
from dashboard_app.selectors.live import release_endpoint_arms
from live_app.services import endpoint_update, release_benchmark_endpoints
from releases_app import selectors
from releases_app.choices import GateVerdict, ReleaseState
from releases_app.forms import ApproveForm, DecisionForm
from releases_app.models import Release
from releases_app.services.guards import release_actions
from specpact.errors import DomainError, NotFound, error_words


def _release_or_404(request: HttpRequest, release_id: int) -> Release:
    try:
        return selectors.release_get(subject=request, release_id=release_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None


@login_required
def release_detail(request: HttpRequest, release_id: int) -> HttpResponse:
    release = _release_or_404(request, release_id)
    initial = {"lock_version": release.lock_version}
    waits = release.state == ReleaseState.PROPOSED and bool(release.endpoints)
    context: dict[str, Any] = {
        "release": release,
        "endpoint_arms": release_endpoint_arms(release),
        "waiting_for_endpoints": selectors.release_waiting_for_endpoints(release),
        # The service decides (route scope, the endpoints' state); the button is offered
        # only where it could start, as the decision forms are.
        "may_benchmark": waits and has_role(request, "operator"),
        # Stored as dicts; the diff table reads attributes.
        "rows": side_by_side([SimpleNamespace(**change) for change in release.diff]),
        "decisions": selectors.release_decisions(release),
        "timeline": selectors.release_timeline(release),
        "ev": release_evidence(release),
        "actions": release_actions(release=release, actor=actor_from_request(request)),
        "gate_failed": release.gate_verdict == GateVerdict.FAIL,
        "approve_form": ApproveForm(initial=initial),
        "decision_form": DecisionForm(initial=initial),
        "nav": "releases",
    }
    return render(request, "dashboard/release_detail.html", context)


@login_required
def release_progress(request: HttpRequest, release_id: int) -> HttpResponse:
    """The progress partial htmx polls. Once the benchmark is over the whole page reloads
    (HX-Refresh), so that the verdict and the charts appear."""
    release = _release_or_404(request, release_id)
    context = progress_context(release)
    response = render(request, "dashboard/_release_progress.html", context)
    if not context["active"] and request.headers.get("HX-Request") == "true":
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def release_benchmark(request: HttpRequest, release_id: int) -> HttpResponseRedirect:
    """Start a waiting release's benchmark on the endpoints it names: both are probed
    first (at once, within ENDPOINT_PROBE_TIMEOUT_S), so a drifted one comes back as the
    message, the release still waiting."""
    if not has_role(request, "operator"):
        raise PermissionDenied("Starting a benchmark needs the operator role or higher.")
    release = _release_or_404(request, release_id)
    here = redirect("release-detail", release_id=release.pk)
    try:
        started = release_benchmark_endpoints(
            release=release.pk,
            actor=actor_from_request(request),
            request_id=getattr(request, "request_id", ""),
        )
    except DomainError as exc:
        said = error_words(exc).removeprefix("Not benchmarked: ")  # a drift's detail opens so
        messages.error(request, f"Not benchmarked: {said}")
        return here
    names = started.endpoints
    messages.success(
        request,
        f"Release {started.pk} is benchmarking on {names['baseline']} (baseline) and "
        f"{names['candidate']} (candidate).",
    )
    return here


@login_required
@require_POST
def release_point_candidate(request: HttpRequest, release_id: int) -> HttpResponseRedirect:
    """Point the release's candidate endpoint at it (`expects: release:<id>`), once the
    candidate is deployed there: the step between proposing and benchmarking."""
    if not has_role(request, "operator"):
        raise PermissionDenied("Changing an endpoint needs the operator role or higher.")
    release = _release_or_404(request, release_id)
    here = redirect("release-detail", release_id=release.pk)
    arm = next((a for a in release_endpoint_arms(release) if a.arm == "candidate"), None)
    if arm is None or arm.endpoint is None:
        messages.error(request, "Not changed: the release names no registered candidate endpoint.")
        return here
    try:
        endpoint_update(
            endpoint=arm.endpoint,
            expects=arm.wants,
            actor=actor_from_request(request),
            request_id=getattr(request, "request_id", ""),
        )
    except DomainError as exc:
        messages.error(request, f"Not changed: {exc.detail}")
        return here
    messages.success(request, f"{arm.name} now expects {arm.wants}; it is probed when the benchmark starts.")
    return here
