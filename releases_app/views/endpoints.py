"""The release page's two posts about live endpoints: point the candidate endpoint at the
release, then start the benchmark on both. Thin, like the decision views: call one
service, message and redirect; a DomainError becomes the message, never a 500."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from kernel.errors import DomainError, error_words
from live_app.selectors import endpoint_get
from releases_app.selectors import arm_expectation
from releases_app.services.endpoint_benchmark import release_benchmark_endpoints
from releases_app.services.endpoints import endpoint_change
from releases_app.views.lookup import release_or_404


@login_required
@require_POST
def release_benchmark(request: HttpRequest, release_id: int) -> HttpResponseRedirect:
    """Start a waiting release's benchmark on the endpoints it names: both are probed
    first (at once, within ENDPOINT_PROBE_TIMEOUT_S), so a drifted one comes back as the
    message, the release still waiting."""
    if not has_role(request, "operator"):
        raise PermissionDenied("Starting a benchmark needs the operator role or higher.")
    release = release_or_404(request, release_id)
    here = redirect("release-detail", release_id=release.pk)
    try:
        started = release_benchmark_endpoints(
            release=release.pk,
            actor=actor_from_request(request),
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
    release = release_or_404(request, release_id)
    here = redirect("release-detail", release_id=release.pk)
    name = (release.endpoints or {}).get("candidate")
    endpoint = endpoint_get(release.route, name) if name else None
    if endpoint is None:
        messages.error(request, "Not changed: the release names no registered candidate endpoint.")
        return here
    wants = str(arm_expectation("candidate", release))
    try:
        endpoint_change(
            endpoint=endpoint,
            expects=wants,
            actor=actor_from_request(request),
        )
    except DomainError as exc:
        messages.error(request, f"Not changed: {exc.detail}")
        return here
    messages.success(request, f"{name} now expects {wants}; it is probed when the benchmark starts.")
    return here
