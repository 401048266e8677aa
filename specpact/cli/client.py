"""A small HTTP client for the SpecPact API, for the CLI's server commands. Errors come
back as problem+json; they are turned into `ApiError` with the exit code the CLI uses
(DESIGN.md §8: 2 invalid input or usage, 3 timeout or server unreachable)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import httpx

from specpact.cli.exit_codes import INVALID as EXIT_INVALID
from specpact.cli.exit_codes import UNREACHABLE as EXIT_UNREACHABLE


@dataclass
class ApiError(Exception):
    message: str
    exit_code: int
    status: int | None = None
    errors: list[dict[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [self.message] + [
            f"  {e.get('path') or '(document)'}: {e.get('message')}" for e in self.errors
        ]
        return "\n".join(lines)


class Client:
    def __init__(self, url: str | None, token: str | None, timeout: float = 30.0) -> None:
        base = url or os.environ.get("SPECPACT_URL")
        if not base:
            raise ApiError("no server: pass --url or set SPECPACT_URL", EXIT_INVALID)
        token = token or os.environ.get("SPECPACT_TOKEN")
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        self._http = httpx.Client(base_url=base.rstrip("/") + "/api/v1/", headers=headers, timeout=timeout)

    def request(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TimeoutException as exc:
            raise ApiError(f"the server did not answer in time ({exc})", EXIT_UNREACHABLE) from None
        except httpx.HTTPError as exc:
            raise ApiError(f"cannot reach the server: {exc}", EXIT_UNREACHABLE) from None
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = None
        if response.status_code >= 500:
            raise ApiError(f"server error {response.status_code}", EXIT_UNREACHABLE, response.status_code)
        if response.status_code >= 400:
            body = body if isinstance(body, dict) else {}
            detail = body.get("detail") or response.reason_phrase
            raise ApiError(
                f"{response.status_code} {detail}",
                EXIT_INVALID,
                response.status_code,
                body.get("errors") or [],
            )
        return response.status_code, body

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params or None)[1]

    def post(self, path: str, json: Any = None, **kwargs: Any) -> tuple[int, Any]:
        return self.request("POST", path, json=json, **kwargs)
