"""The sign-in limit's clock, held still and moved by hand, so that a test of its delays
never depends on how fast it runs."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts_app import login_limit


class Clock:
    def __init__(self, monkeypatch: Any, start: float = 1_800_000_000.0) -> None:
        self.now = start
        monkeypatch.setattr(login_limit, "_now", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds


def sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/login/", {"username": username, "password": password})
