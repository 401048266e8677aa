"""The workers page and a run's page (minimal: state, progress, history, cancel)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts_app.permissions import can_access_route, has_role
from audit_app.actors import actor_from_request
from benchmarks_app.models import Run
from benchmarks_app.selectors import run_get, run_list, worker_list
from benchmarks_app.services.runs import run_cancel
from specpact.errors import DomainError, NotFound


@login_required
def workers_page(request: HttpRequest) -> HttpResponse:
    workers = list(worker_list())
    recent_runs = list(run_list()[:20])
    return render(
        request, "benchmarks/workers.html", {"workers": workers, "runs": recent_runs, "nav": "workers"}
    )


def _run_or_404(request: HttpRequest, run_id: int) -> Run:
    try:
        run = run_get(run_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    if not can_access_route(request, run.route):
        raise Http404(f"No run {run_id}.")
    return run


@login_required
def run_page(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run_or_404(request, run_id)
    context = {
        "run": run,
        "can_cancel": not run.is_finished and has_role(request, "operator"),
        "nav": "workers",
    }
    # htmx polls the progress fragment while the run is active.
    if request.headers.get("HX-Request") == "true":
        return render(request, "benchmarks/_run_status.html", context)
    return render(request, "benchmarks/run_detail.html", context)


@login_required
@require_POST
def run_cancel_page(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run_or_404(request, run_id)
    if not has_role(request, "operator"):
        messages.error(request, "Cancelling a run needs the operator role.")
    else:
        try:
            run_cancel(
                run=run, actor=actor_from_request(request), reason=request.POST.get("reason", "").strip()
            )
            messages.success(request, f"Run {run.pk} cancelled.")
        except DomainError as exc:
            messages.error(request, exc.detail)
    return HttpResponseRedirect(reverse("run-detail", args=[run.pk]))
