"""Release pages: the list, and the decisions posted from the release page (the page
itself reads across domains and is dashboard_app's). Thin: validate a form, call one
service, message and redirect; a DomainError becomes an error message, never a 500."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from kernel.errors import DomainError, error_words
from kernel.filtersets import page_filter_query, page_queryset
from releases_app import selectors, services
from releases_app.choices import ReleaseState
from releases_app.filtersets import ReleaseFilterSet
from releases_app.forms import ApproveForm, DecisionForm, ProposeForm
from releases_app.views.lookup import release_or_404


@login_required
def release_list(request: HttpRequest) -> HttpResponse:
    filterset = ReleaseFilterSet(request.GET or None, queryset=selectors.release_rows(subject=request))
    page = Paginator(page_queryset(filterset), 50).get_page(request.GET.get("page"))
    return render(
        request,
        "releases/release_list.html",
        {
            "page": page,
            "filters": filterset.form,
            "query": page_filter_query(request, filterset),
            "propose_form": ProposeForm() if has_role(request, "operator") else None,
            "nav": "releases",
        },
    )


_SERVICES = {
    "approve": services.release_approve,
    "reject": services.release_reject,
    "cancel": services.release_cancel,
    "rollback": services.release_rollback,
}
_DONE = {
    "approve": "approved and activated",
    "reject": "rejected",
    "cancel": "cancelled",
    "rollback": "rolled back",
}


def _form_errors(form: forms.Form) -> str:
    return "; ".join(f"{field}: {' '.join(str(m) for m in msgs)}" for field, msgs in form.errors.items())


@login_required
@require_POST
def release_action(request: HttpRequest, release_id: int, action: str) -> HttpResponseRedirect:
    if action not in _SERVICES:
        raise Http404("no such action")
    release = release_or_404(request, release_id)
    form = (ApproveForm if action == "approve" else DecisionForm)(request.POST)
    here = reverse("release-detail", args=[release.pk])
    if not form.is_valid():
        messages.error(request, f"Not {_DONE[action]}: {_form_errors(form)}")
        return redirect(here)
    data = dict(form.cleaned_data)
    kwargs: dict[str, Any] = {"reason": data["reason"], "expected_lock": data["lock_version"]}
    if action == "approve":
        kwargs.update(override=data["override"], justification=data["justification"])
    try:
        _SERVICES[action](
            release=release.pk,
            actor=actor_from_request(request),
            **kwargs,
        )
    except DomainError as exc:
        messages.error(request, f"Not {_DONE[action]}: {error_words(exc)}")
        return redirect(here)
    messages.success(request, f"Release {release.pk} {_DONE[action]}.")
    return redirect(here)


@login_required
@require_POST
def release_propose(request: HttpRequest) -> HttpResponseRedirect:
    form = ProposeForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not proposed: {_form_errors(form)}")
        return _back(form.data)
    data = dict(form.cleaned_data)
    data.pop("back", None)
    try:
        release = services.release_create(actor=actor_from_request(request), **data)
    except DomainError as exc:
        messages.error(request, _not_proposed(exc))
        return _back(form.cleaned_data)
    if release.endpoints and release.state == ReleaseState.PROPOSED:
        messages.success(request, f"Release {release.pk} proposed; it waits for its endpoints (below).")
    else:
        messages.success(request, f"Release {release.pk} proposed: {release.get_state_display()}.")
    return redirect("release-detail", release_id=release.pk)


def _not_proposed(exc: DomainError) -> str:
    """The refusal in words; a 409 for an open release links to that release (its id is
    the problem's `open_release`, releases_app/services/proposals.py)."""
    open_release = exc.extensions.get("open_release")
    if not open_release:
        return f"Not proposed: {error_words(exc)}"
    link = reverse("release-detail", args=[open_release["id"]])
    return format_html(
        'Not proposed: release <a href="{}">#{}</a> of this route is still open ({}). Cancel it on its '
        "page, or let it finish, before proposing another.",
        link,
        open_release["id"],
        ReleaseState(open_release["state"]).label,
    )


def _back(data: Any) -> HttpResponseRedirect:
    """The page the form was posted from, when it said so and names a route (and version)."""
    back, slug, number = data.get("back"), data.get("route"), data.get("candidate_version")
    try:
        if back == "route" and slug:
            return redirect("route-detail", slug)
        if back == "version" and slug and number:
            return redirect("version-detail", slug, int(number))
    except (NoReverseMatch, ValueError):
        pass
    return redirect("release-list")
