"""API tokens from the browser: everyone signed in issues and revokes their own, admins
anyone's (the same service and rules as `POST/DELETE /api/v1/tokens/`). A new token's key
is on the one response that issued it (no-store) and nowhere after: only its hash is kept."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts_app import services
from accounts_app.forms import TokenIssueForm, TokenRevokeForm
from accounts_app.permissions import is_fleet_admin
from accounts_app.selectors import tokens_visible_to, user_by_username
from audit_app.actors import actor_from_request
from kernel.errors import DomainError, FieldError, Forbidden, error_words


def _is_admin(request: HttpRequest) -> bool:
    return is_fleet_admin(request)  # an admin limited to some routes sees their own tokens only


@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, TokenIssueForm())
    form = TokenIssueForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        issued = services.token_issue(
            user=_user(request, form.cleaned_data["user"]),
            role=form.cleaned_data["role"],
            routes=form.route_slugs(),
            name=form.cleaned_data["name"],
            expires_at=form.cleaned_data["expires_at"],
            purpose=form.token_purpose(),
            actor=actor_from_request(request),
        )
    except DomainError as exc:
        return _page(request, form, error=exc, status=exc.status if exc.status < 500 else 400)
    response = _page(request, TokenIssueForm(), issued=issued, status=201)
    # The key is on this response only: no cache may keep it.
    response["Cache-Control"] = "no-store"
    return response


def _user(request: HttpRequest, username: str) -> Any:
    if not username or username == request.user.get_username():
        return request.user
    if not _is_admin(request):
        # Said before the look-up, so a non-admin can't learn which usernames exist.
        raise Forbidden("Only an admin can issue tokens for another user.")
    user = user_by_username(username)
    if user is None:
        raise DomainError(
            "The request is invalid; see errors.", errors=[FieldError("user", f"no user {username!r}")]
        )
    return user


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponseRedirect:
    token = tokens_visible_to(request.user, is_admin=_is_admin(request)).filter(pk=token_id).first()
    if token is None:
        raise Http404(f"Token {token_id} not found.")
    form = TokenRevokeForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Not revoked: the reason is too long.")
        return redirect("token-list")
    try:
        services.token_revoke(
            token=token, actor=actor_from_request(request), reason=form.cleaned_data["reason"]
        )
    except DomainError as exc:
        messages.error(request, f"Not revoked: {error_words(exc)}")
        return redirect("token-list")
    messages.success(request, f"Token {token.prefix} revoked.")
    return redirect("token-list")


def _page(
    request: HttpRequest,
    form: TokenIssueForm,
    *,
    issued: Any = None,
    error: DomainError | None = None,
    status: int = 200,
) -> HttpResponse:
    is_admin = _is_admin(request)
    return render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "issued": issued,
            "error": error,
            "is_admin": is_admin,
            "tokens": tokens_visible_to(request.user, is_admin=is_admin).select_related("created_by")[:200],
            "nav": "tokens",
        },
        status=status,
    )
