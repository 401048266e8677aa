"""Error pages extend the site's layout and say what to do next, never a bare server page."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory, override_settings
from django.views.defaults import permission_denied, server_error

pytestmark = pytest.mark.django_db


@override_settings(DEBUG=False)
def test_a_missing_page_says_what_was_missing(signed_in: Client) -> None:
    response = signed_in.get("/routes/nope/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "<h1>Not found</h1>" in body and "No route named &#x27;nope&#x27;." in body
    assert 'class="topbar"' in body and 'href="/"' in body  # the site's layout and a way back


@override_settings(DEBUG=False)
def test_an_unknown_address_is_the_same_page(signed_in: Client) -> None:
    response = signed_in.get("/no/such/page/")
    assert response.status_code == 404 and "<h1>Not found</h1>" in response.content.decode()


def test_the_server_error_page_renders_without_a_request_context() -> None:
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    body = response.content.decode()
    assert "Something went wrong on our side" in body and 'class="topbar"' in body


def test_the_forbidden_page_names_the_reason(viewer: Any) -> None:
    request = RequestFactory().get("/")
    request.user = viewer
    response = permission_denied(request, PermissionDenied("Your role is viewer; this needs approver."))
    assert response.status_code == 403
    assert "Your role is viewer; this needs approver." in response.content.decode()


def test_an_expired_form_gets_the_csrf_page(viewer: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    response = client.post("/logout/")
    assert response.status_code == 403
    body = response.content.decode()
    assert "This form expired" in body and "Nothing was changed." in body
