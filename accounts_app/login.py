"""The browser's sign-in form with an attempt limit.

LOGIN_MAX_FAILURES failed sign-ins for one username (LOGIN_MAX_FAILURES_PER_ADDRESS from one
address: many people may share one) within LOGIN_LOCKOUT_S lock that username (or address)
out until the window ends: the form
answers 429 with `Retry-After`, whatever the password, so guessing can't go on. The lockout
is an audit event (`login.locked_out`) when it trips. The counts are in Django's cache
(settings.CACHES: Redis or the database in production), shared by every web process."""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import BaseThrottle

from audit_app.actors import Actor
from audit_app.services import audit_record

_PREFIX = "login-limit"


def _subjects(request: HttpRequest, username: str) -> list[tuple[str, str]]:
    """(what, cache id) for the username tried and the address it came from (behind
    REST_FRAMEWORK NUM_PROXIES proxies, from X-Forwarded-For, as the API's throttles)."""
    name = username.strip().lower()[:150]
    address = BaseThrottle().get_ident(request)  # type: ignore[arg-type]  # reads only META
    digest = hashlib.sha256(name.encode()).hexdigest()[:32]
    return [("username", f"user:{digest}"), ("address", f"addr:{address}")]


def _locked_until(ident: str) -> float | None:
    until = cache.get(f"{_PREFIX}:locked:{ident}")
    return float(until) if until is not None and float(until) > time.time() else None


def _retry_after(request: HttpRequest, username: str) -> int | None:
    untils = [u for _, ident in _subjects(request, username) if (u := _locked_until(ident)) is not None]
    return max(1, math.ceil(max(untils) - time.time())) if untils else None


def _count_failure(request: HttpRequest, username: str) -> int | None:
    """Count one failed sign-in; the lockout's length in seconds when this one tripped it."""
    window = int(settings.LOGIN_LOCKOUT_S)
    tripped = None
    for what, ident in _subjects(request, username):
        key = f"{_PREFIX}:failures:{ident}"
        cache.add(key, 0, timeout=window)  # the window starts at the first failure
        try:
            failures = cache.incr(key)
        except ValueError:  # expired between add and incr: this failure opens a new window
            cache.set(key, 1, timeout=window)
            failures = 1
        limit = settings.LOGIN_MAX_FAILURES if what == "username" else settings.LOGIN_MAX_FAILURES_PER_ADDRESS
        if failures >= int(limit) and _locked_until(ident) is None:
            cache.set(f"{_PREFIX}:locked:{ident}", time.time() + window, timeout=window)
            audit_record(
                actor=Actor.system("anonymous"),
                action="login.locked_out",
                obj_type="login",
                obj_id=username[:150] if what == "username" else ident.removeprefix("addr:"),
                after={"locked_by": what, "failures": failures, "seconds": window},
                reason=f"{failures} failed sign-ins for this {what} within {window} s",
            )
            tripped = window
    return tripped


class RateLimitedLoginView(LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry = _retry_after(request, str(request.POST.get("username", "")))
        if retry is not None:
            return self._locked_out(retry)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        tripped = _count_failure(self.request, str(self.request.POST.get("username", "")))
        if tripped is not None:
            return self._locked_out(tripped)
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        name = str(self.request.POST.get("username", ""))
        cache.delete(f"{_PREFIX}:failures:{_subjects(self.request, name)[0][1]}")
        return super().form_valid(form)

    def _locked_out(self, retry_after: int) -> HttpResponse:
        context = self.get_context_data(form=self.get_form_class()(self.request), locked_out_s=retry_after)
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(retry_after)
        return response
