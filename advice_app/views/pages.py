"""What the advice pages post (the pages themselves read across domains and are
dashboard_app's, dashboard_app/views/advice.py): a new advice run, the draft version of a
finished one, proposing that draft as a release. Thin: validate a form, call one service,
message and redirect; a DomainError becomes an error message by field, never a 500."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from advice_app import services
from advice_app.forms import AdviceCreateForm, AdviceProposeForm
from advice_app.models import AdviceRun
from advice_app.selectors import advice_get
from audit_app.actors import actor_from_request
from contracts_app.views.pages import route_or_404
from kernel.errors import DomainError, NotFound, error_words


def _form_errors(form: forms.Form) -> str:
    return "; ".join(f"{field}: {' '.join(str(m) for m in msgs)}" for field, msgs in form.errors.items())


def _advice_or_404(request: HttpRequest, advice_id: int) -> AdviceRun:
    try:
        return advice_get(subject=request, advice_id=advice_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None


@login_required
@require_POST
def advice_create(request: HttpRequest, slug: str) -> HttpResponseRedirect:
    route = route_or_404(request, slug)
    form = AdviceCreateForm(request.POST, route=route)
    if not form.is_valid():
        messages.error(request, f"No advice run started: {_form_errors(form)}")
        return redirect("route-advice", route.slug)
    data = form.cleaned_data
    try:
        advice = services.advice_run_create(
            route=route,
            lanes=data["lanes"],
            candidates=data["candidates"],
            budget=data["budget"],
            budget_gpu_minutes=data.get("budget_gpu_minutes"),
            seed=data["seed"] or 0,
            actor=actor_from_request(request),
        )
    except DomainError as exc:
        messages.error(request, f"No advice run started: {error_words(exc)}")
        return redirect("route-advice", route.slug)
    messages.success(request, f"Advice run {advice.pk} started: {advice.get_state_display()}.")
    return redirect("advice-detail", advice_id=advice.pk)


@login_required
@require_POST
def advice_draft(request: HttpRequest, advice_id: int) -> HttpResponseRedirect:
    advice = _advice_or_404(request, advice_id)
    try:
        draft = services.advice_draft_create(advice=advice, actor=actor_from_request(request))
    except DomainError as exc:
        messages.error(request, f"No draft made: {error_words(exc)}")
        return redirect("advice-detail", advice_id=advice.pk)
    messages.success(request, f"Drafted as version {draft.version.number}.")
    return redirect("advice-detail", advice_id=advice.pk)


@login_required
@require_POST
def advice_propose(request: HttpRequest, advice_id: int) -> HttpResponseRedirect:
    advice = _advice_or_404(request, advice_id)
    form = AdviceProposeForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not proposed: {_form_errors(form)}")
        return redirect("advice-detail", advice_id=advice.pk)
    try:
        release = services.advice_propose(
            advice=advice, actor=actor_from_request(request), reason=form.cleaned_data["reason"]
        )
    except DomainError as exc:
        messages.error(request, f"Not proposed: {error_words(exc)}")
        return redirect("advice-detail", advice_id=advice.pk)
    messages.success(request, f"Release {release.pk} proposed: {release.get_state_display()}.")
    return redirect("release-detail", release_id=release.pk)
