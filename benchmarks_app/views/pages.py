"""The workers page and a run's page (minimal: state, progress, history, cancel)."""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.backends.utils import csrf_input
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts_app.permissions import can_access_route, ensure_fleet_wide, has_role, scope_queryset
from audit_app.actors import actor_from_request
from benchmarks_app.models import Run
from benchmarks_app.selectors import recent_runs, run_get, run_list, worker_get, workers_for_page
from benchmarks_app.services.runs import run_cancel
from benchmarks_app.services.workers import worker_revoke
from benchmarks_app.views.rows import recent_run_rows, worker_rows
from kernel.errors import DomainError, NotFound
from kernel.urls import url_maker


def _fleet_wide(request: HttpRequest) -> bool:
    try:
        ensure_fleet_wide(request, "revoke workers")
    except DomainError:
        return False
    return True


def _utc(value: datetime | None, words: str) -> tuple[str, str]:
    """A time as the page's `|date:'c'` and `|date:words` show it, in the current zone (UTC)."""
    if value is None:
        return "", ""
    at = timezone.localtime(value)
    return at.isoformat(), at.strftime(words)


@login_required
def workers_page(request: HttpRequest) -> HttpResponse:
    # Links and times made here once per row (issue 26, point 1: the template's `{% url %}`
    # and `date` filters per row were a third of the page's CPU); kernel.urls.url_maker.
    run_url, revoke_url = url_maker("run-detail"), url_maker("worker-revoke")
    workers = list(workers_for_page())
    for worker in workers:
        # The fleet is shared, the runs on it are not: another route's run shows as "busy"
        # to someone limited to some routes, as the API's `current_run` is null for them.
        worker.shown_runs = [r for r in worker.active_runs if can_access_route(request, r.route)]  # type: ignore[attr-defined]
        for run in worker.shown_runs[:1]:  # type: ignore[attr-defined]
            run.url = run_url(run.pk)
        worker.revoke_url = revoke_url(worker.pk)  # type: ignore[attr-defined]
        worker.heartbeat_iso, worker.heartbeat_words = _utc(worker.last_heartbeat_at, "%Y-%m-%d %H:%M:%S")  # type: ignore[attr-defined]
    runs = list(recent_runs(scope_queryset(request, run_list()))[:20])
    for run in runs:
        run.url = run_url(run.pk)  # type: ignore[attr-defined]
        run.created_iso, run.created_words = _utc(run.created_at, "%Y-%m-%d %H:%M")  # type: ignore[attr-defined]
    can_revoke = has_role(request, "admin") and _fleet_wide(request)
    context = {
        "workers": workers,
        "runs": runs,
        # The tables' rows made in Python (views/rows.py: the template's per-cell work was
        # most of the page), the revoke forms with the request's CSRF field.
        "worker_rows": worker_rows(workers, can_revoke=can_revoke, csrf_input=csrf_input(request)),
        "run_rows": recent_run_rows(runs),
        "can_revoke": can_revoke,
        "nav": "workers",
    }
    # htmx refreshes the fleet table (status, current run, heartbeats) in place.
    if request.headers.get("HX-Request") == "true":
        return render(request, "benchmarks/_workers_table.html", context)
    return render(request, "benchmarks/workers.html", context)


@login_required
@require_POST
def worker_revoke_page(request: HttpRequest, worker_id: int) -> HttpResponse:
    if not has_role(request, "admin"):
        messages.error(request, "Revoking a worker needs the admin role.")
        return HttpResponseRedirect(reverse("workers"))
    try:
        worker = worker_get(worker_id)
        worker_revoke(worker=worker, actor=actor_from_request(request), reason=request.POST.get("reason", ""))
        messages.success(request, f"Worker {worker.name} (#{worker.pk}) revoked: its token no longer works.")
    except DomainError as exc:
        messages.error(request, exc.detail)
    return HttpResponseRedirect(reverse("workers"))


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
            run_cancel(run=run, actor=actor_from_request(request), reason=request.POST.get("reason", ""))
            messages.success(request, f"Run {run.pk} cancelled.")
        except DomainError as exc:
            messages.error(request, exc.detail)
    return HttpResponseRedirect(reverse("run-detail", args=[run.pk]))
