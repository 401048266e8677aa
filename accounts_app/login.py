"""The browser's sign-in form with an attempt limit (the rules: accounts_app/login_limit.py).

While a name from an address must wait, the form answers 429 with `Retry-After`, whatever
the password, so guessing can't go on at speed; the wait grows with failures and is capped,
so an attacker can't use it to keep a user out for long."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse

from accounts_app.login_limit import record_failure, record_success, wait_before_try


class RateLimitedLoginView(LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if settings.OIDC_ENABLED:
            context["sso_provider_name"] = settings.OIDC_PROVIDER_NAME
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry = wait_before_try(request, self._name())
        if retry is not None:
            return self._locked_out(retry)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        retry = record_failure(self.request, self._name())
        if retry is not None:
            return self._locked_out(retry)
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        record_success(self.request, self._name())
        return super().form_valid(form)

    def _name(self) -> str:
        return str(self.request.POST.get("username", ""))

    def _locked_out(self, retry_after: int) -> HttpResponse:
        context = self.get_context_data(form=self.get_form_class()(self.request), locked_out_s=retry_after)
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(retry_after)
        return response
