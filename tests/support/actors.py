"""Someone who calls the API in a permission test: a user through a session, or a token
holder. The named actors themselves are fixtures (tests/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient

# The route the `pipeline` actor's token is scoped to.
PIPELINE_ROUTE = "contract-summaries"


@dataclass
class Caller:
    """Someone who calls the API: a user through a session, or a token holder."""

    name: str
    user: Any = None
    key: str | None = None
    token: Any = None

    def client(self) -> APIClient:
        client = APIClient()
        if self.key is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {self.key}")
        elif self.user is not None:
            client.force_login(self.user)
        return client


def as_caller(name: str, user: Any) -> Caller:
    return Caller(name, user=user)
