"""The worker's side of the REST protocol (httpx, synchronous).

Errors are sorted into what the caller does with them: `Transient` (connection trouble,
502/503/504/429: try again later), `Refused` (a 409 the worker reads as "drop it
quietly": the run moved on), and `ApiError` (anything else: a bug or a bad request,
reported in words)."""

from __future__ import annotations

import gzip
import json as jsonlib
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import httpx

_TRANSIENT_STATUS = {429, 502, 503, 504}
T = TypeVar("T")


class ApiError(Exception):
    def __init__(self, status: int, detail: str, code: str = "", body: Any = None) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.detail, self.code, self.body = status, detail, code, body


class Transient(ApiError):
    """Worth retrying: the control plane is unreachable or overloaded."""


class Refused(ApiError):
    """409: the run is finished, cancelled or on another attempt."""


def _raise_for(response: httpx.Response) -> None:
    if response.is_success:
        return
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail", response.text[:500]) if isinstance(body, dict) else response.text[:500]
    code = body.get("code", "") if isinstance(body, dict) else ""
    if isinstance(body, dict) and body.get("errors"):
        detail += " " + "; ".join(f"{e.get('path')}: {e.get('message')}" for e in body["errors"][:10])
    kind = (
        Transient
        if response.status_code in _TRANSIENT_STATUS
        else Refused
        if response.status_code == 409
        else ApiError
    )
    raise kind(response.status_code, str(detail), str(code), body)


def with_backoff(call: Callable[[], T], *, tries: int = 6, base_s: float = 1.0, cap_s: float = 30.0) -> T:
    """Retry `call` on Transient only, with exponential backoff and full jitter."""
    for attempt in range(tries):
        try:
            return call()
        except Transient:
            if attempt == tries - 1:
                raise
            time.sleep(random.uniform(0, min(cap_s, base_s * 2**attempt)))
    raise AssertionError("unreachable")


class ApiClient:
    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Token {token}"} if token else {}
        self._http = httpx.Client(base_url=self.base_url + "/api/v1/", headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def _send(
        self,
        method: str,
        path: str,
        json: Any = None,
        headers: dict[str, str] | None = None,
        content: bytes | None = None,
    ) -> Any:
        try:
            if content is not None:
                response = self._http.request(method, path, content=content, headers=headers)
            else:
                response = self._http.request(method, path, json=json, headers=headers)
        except httpx.TransportError as exc:
            raise Transient(0, f"{type(exc).__name__}: {exc}") from exc
        _raise_for(response)
        return response.json() if response.content else None

    def register(self, bootstrap_token: str, facts: dict[str, Any]) -> dict[str, Any]:
        return self._send(
            "POST", "workers/register", json=facts, headers={"Authorization": f"Token {bootstrap_token}"}
        )

    def heartbeat(self, current_run: dict[str, int] | None) -> dict[str, Any]:
        return self._send("POST", "workers/heartbeat", json={"current_run": current_run})

    def start(self, run_id: int, attempt: int) -> dict[str, Any]:
        return self._send("POST", f"runs/{run_id}/start", json={"attempt": attempt})

    def progress(self, run_id: int, attempt: int, done: int, total: int, phase: str = "") -> dict[str, Any]:
        body: dict[str, Any] = {"attempt": attempt, "done": done, "total": total}
        if phase:  # engine_starting, model_loading, benchmarking
            body["phase"] = phase
        return self._send("POST", f"runs/{run_id}/progress", json=body)

    def fail(self, run_id: int, attempt: int, kind: str, reason: str) -> dict[str, Any]:
        body = {"attempt": attempt, "kind": kind, "reason": reason[:4000]}
        return self._send("POST", f"runs/{run_id}/fail", json=body)

    def upload_result(self, run_id: int, outcome: dict[str, Any]) -> dict[str, Any]:
        """Gzipped: per-token samples compress about fourfold, and the control plane
        counts the decompressed size against RUN_RESULT_MAX_BYTES."""
        body = gzip.compress(jsonlib.dumps(outcome, separators=(",", ":")).encode(), compresslevel=6)
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        return self._send("PUT", f"runs/{run_id}/result", headers=headers, content=body)

    @contextmanager
    def workload(self, run_id: int, attempt: int) -> Iterator[Iterator[bytes]]:
        """The bytes of the run's registered workload, streamed (it can be tens of MB)."""
        try:
            with self._http.stream("GET", f"runs/{run_id}/workload", params={"attempt": attempt}) as response:
                if not response.is_success:
                    response.read()
                    _raise_for(response)
                yield response.iter_bytes()
        except httpx.TransportError as exc:
            raise Transient(0, f"{type(exc).__name__}: {exc}") from exc
