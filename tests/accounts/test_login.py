from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_login_and_logout(viewer: Any) -> None:
    client = Client(enforce_csrf_checks=False)
    page = client.get("/login/")
    assert page.status_code == 200 and b"Sign in" in page.content
    wrong = client.post("/login/", {"username": viewer.username, "password": "nope"})
    assert wrong.status_code == 200 and b"errors" in wrong.content
    ok = client.post("/login/", {"username": viewer.username, "password": PASSWORD, "next": "/releases/"})
    assert (ok.status_code, ok["Location"]) == (302, "/releases/")
    assert client.get("/releases/").status_code == 200
    assert client.get("/logout/").status_code == 405  # a link can't sign you out
    assert client.post("/logout/").status_code == 302
    assert client.get("/releases/").status_code == 302
