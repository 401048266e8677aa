"""The provider's sign-in, callback and logout views, mounted always but answering only
when single sign-on is configured (settings.OIDC_ENABLED): 404 otherwise, so an
unconfigured deployment has no half-working endpoints."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from mozilla_django_oidc import views as oidc_views

from accounts_app.login import RateLimitedLoginView

logger = logging.getLogger(__name__)

_authenticate = oidc_views.OIDCAuthenticationRequestView.as_view()
_callback = oidc_views.OIDCAuthenticationCallbackView.as_view()
_oidc_logout = oidc_views.OIDCLogoutView.as_view()
_local_logout = auth_views.LogoutView.as_view()


def _on() -> None:
    if not settings.OIDC_ENABLED:
        raise Http404("Single sign-on is not configured.")


def sso_authenticate(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    _on()
    return _authenticate(request, *args, **kwargs)


def sso_callback(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """The provider's answer. One SpecPact refuses (a bad signature, issuer or audience, a
    replayed state) is a 400 with the sign-in page saying why, nobody signed in."""
    _on()
    try:
        return _callback(request, *args, **kwargs)
    except SuspiciousOperation as exc:
        logger.warning("single sign-on refused: %s", exc)
        page = RateLimitedLoginView.as_view(extra_context={"sso_error": str(exc)})(request)
        page.status_code = 400
        return page


def logout(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """POST only either way (a GET link can't sign someone out). With single sign-on on,
    mozilla-django-oidc's logout: Django's logout, then the provider's end_session
    endpoint when configured (accounts_app/sso.py `provider_logout_url`)."""
    view = _oidc_logout if settings.OIDC_ENABLED else _local_logout
    return view(request, *args, **kwargs)
