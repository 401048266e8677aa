"""The release page: what changes, the benchmark's evidence, the timeline, and the
decision forms the person may use; and its progress partial (htmx, polled while runs are
queued or running). The decisions themselves are posted to releases_app's views."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from audit_app.actors import actor_from_request
from contracts_app.views.diff_table import side_by_side
from dashboard_app.selectors.evidence import progress_context, release_evidence
from releases_app import selectors
from releases_app.choices import GateVerdict
from releases_app.forms import ApproveForm, DecisionForm
from releases_app.models import Release
from releases_app.services.guards import release_actions
from specpact.errors import NotFound


def _release_or_404(request: HttpRequest, release_id: int) -> Release:
    try:
        return selectors.release_get(subject=request, release_id=release_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None


@login_required
def release_detail(request: HttpRequest, release_id: int) -> HttpResponse:
    release = _release_or_404(request, release_id)
    initial = {"lock_version": release.lock_version}
    context: dict[str, Any] = {
        "release": release,
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
