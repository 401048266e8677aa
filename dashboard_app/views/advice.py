"""The advice pages (issue 24 point 4): a route's advice runs, newest first, with the form
that starts a new one; and one run: its progress, per lane the recommendation in words
with its interval and n, the curves and the Pareto front, the dropped and the tied
candidates, and the draft it was handed over as. Read only: the forms post to advice_app's
views (advice_app/views/pages.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import has_role
from advice_app import words
from advice_app.charts import advice_figures
from advice_app.choices import AdviceState
from advice_app.forms import AdviceCreateForm, AdviceProposeForm
from advice_app.models import AdviceRun
from advice_app.selectors import advice_get, advice_list, gpu_minutes_spent, spent_per_lane
from contracts_app.views.pages import route_or_404
from kernel.errors import NotFound
from kernel.plotting import figure_json

ADVICE_PAGE_SIZE = 20


@login_required
def route_advice(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    page = Paginator(advice_list(subject=request, route=route), ADVICE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    can_advise = has_role(request, "operator") and route.active_version is not None
    return render(
        request,
        "dashboard/advice_list.html",
        {
            "route": route,
            "page": page,
            "can_advise": can_advise,
            "form": AdviceCreateForm(route=route) if can_advise else None,
            "nav": "routes",
        },
    )


@login_required
def advice_detail(request: HttpRequest, advice_id: int) -> HttpResponse:
    try:
        advice = advice_get(subject=request, advice_id=advice_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    figures = {
        f["id"]: {**f, "json": figure_json(f["figure"])} for f in advice_figures(advice.recommendations)
    }
    # The services decide (scope, state, a changed active version); the forms are offered
    # only where they could work, as the release page's decisions are.
    operator = has_role(request, "operator") and advice.state == AdviceState.FINISHED
    can_propose = operator and advice.draft_version_id is not None and advice.release_id is None
    return render(
        request,
        "dashboard/advice_detail.html",
        {
            "advice": advice,
            "route": advice.route,
            "progress": words.progress_words(advice.state, advice.dispatched, advice.last_error),
            "lanes": _lanes(advice, list(figures.values())),
            # Read only for an advice with a worker-time budget (one query).
            "gpu_minutes_spent": gpu_minutes_spent(advice) if advice.budget_gpu_minutes is not None else None,
            "can_draft": operator and advice.draft_version_id is None,
            "can_propose": can_propose,
            "propose_form": AdviceProposeForm() if can_propose else None,
            "nav": "routes",
        },
    )


def _lanes(advice: AdviceRun, figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    spent = spent_per_lane(advice)
    out = []
    for lane in advice.lanes:
        rec = advice.recommendations.get(lane)
        row: dict[str, Any] = {"name": lane, "rec": rec, "spent": spent.get(lane, 0), "budget": advice.budget}
        if rec is not None:
            row.update(
                headline=words.headline(rec),
                decided=words.decided(rec),
                schedule=words.schedule_rows(rec),
                tied=words.tied_rows(rec),
                charts=[f for f in figures if f["lane"] == lane],
                spent=rec["requests_spent"],
            )
        out.append(row)
    return out
