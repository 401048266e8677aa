"""The worker's API client against a real HTTP server that misbehaves: transient answers
(connection refused, 503) are retried with backoff, anything else is not."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.launcher import reserved_port
from worker.agent.client import ApiClient, ApiError, Refused, Transient, with_backoff


class FlakyServer:
    """Answers each PUT with the next status of `script`, then 201."""

    def __init__(self, script: list[int]) -> None:
        self.script, self.calls = list(script), 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                server.calls += 1
                status = server.script.pop(0) if server.script else 201
                body = json.dumps({"detail": f"status {status}", "code": "x", "created": True}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def flaky() -> Iterator[Any]:
    servers: list[FlakyServer] = []

    def make(script: list[int]) -> FlakyServer:
        servers.append(FlakyServer(script))
        return servers[-1]

    yield make
    for s in servers:
        s.httpd.shutdown()


def test_transient_answers_are_retried_until_the_upload_lands(flaky: Any) -> None:
    server = flaky([503, 502, 429])
    client = ApiClient(server.url, "spw_x")
    body = with_backoff(lambda: client.upload_result(1, {"attempt": 1}), tries=5, base_s=0.01)
    assert body["created"] is True and server.calls == 4


def test_a_refusal_is_not_retried(flaky: Any) -> None:
    server = flaky([409])
    client = ApiClient(server.url, "spw_x")
    with pytest.raises(Refused):
        with_backoff(lambda: client.upload_result(1, {"attempt": 1}), tries=5, base_s=0.01)
    assert server.calls == 1


def test_a_bad_request_is_not_retried(flaky: Any) -> None:
    server = flaky([400])
    client = ApiClient(server.url, "spw_x")
    with pytest.raises(ApiError) as caught:
        with_backoff(lambda: client.upload_result(1, {"attempt": 1}), tries=5, base_s=0.01)
    assert not isinstance(caught.value, Transient) and caught.value.status == 400 and server.calls == 1


def test_an_unreachable_control_plane_is_transient_and_gives_up_after_the_tries() -> None:
    with reserved_port() as port:  # bound, never listening: connections are refused
        client = ApiClient(f"http://127.0.0.1:{port}", "spw_x")
        with pytest.raises(Transient, match="ConnectError"):
            with_backoff(lambda: client.upload_result(1, {"attempt": 1}), tries=3, base_s=0.01)
