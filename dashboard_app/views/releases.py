"""The release page: what changes, the live endpoints it is benchmarked on, the benchmark's
evidence, the timeline, and the decision forms the person may use; and its progress partial
(htmx, polled while runs are queued or running). Read only: the decisions and the two
endpoint steps (point the candidate, start the benchmark) are posted to releases_app's
views (`releases_app/views/pages.py`, `releases_app/views/endpoints.py`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from audit_app.rows import timeline_rows
from contracts_app.views.diff_table import side_by_side
from dashboard_app.selectors.evidence import progress_context, release_evidence
from dashboard_app.selectors.live import release_endpoint_arms
from releases_app import selectors
from releases_app.choices import GateVerdict, ReleaseState
from releases_app.forms import ApproveForm, DecisionForm
from releases_app.guards import release_actions
from releases_app.views.lookup import release_or_404


@login_required
def release_detail(request: HttpRequest, release_id: int) -> HttpResponse:
    release = release_or_404(request, release_id)
    initial = {"lock_version": release.lock_version}
    waits = release.state == ReleaseState.PROPOSED and bool(release.endpoints)
    timeline = list(selectors.release_timeline(release))
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
        "timeline": timeline,
        "timeline_rows": timeline_rows(timeline),
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
    release = release_or_404(request, release_id)
    context = progress_context(release)
    response = render(request, "dashboard/_release_progress.html", context)
    if not context["active"] and request.headers.get("HX-Request") == "true":
        response["HX-Refresh"] = "true"
    return response
