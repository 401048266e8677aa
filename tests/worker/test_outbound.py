"""The worker's own allowlist (worker/outbound.py): where it may connect whatever a run
spec says, checked once and then connected to as checked."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import aiohttp
import pytest

from worker.engines.openai_engine import _get
from worker.harness.http1 import Http1Pool
from worker.outbound import ALLOWED_VARIABLE, TargetRefused, check_target, worker_policy


def _ip(text: str) -> Any:
    return ipaddress.ip_address(text)


def test_by_default_only_loopback_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOWED_VARIABLE, raising=False)
    policy = worker_policy()
    assert policy.refusal(_ip("127.0.0.1")) is None and policy.refusal(_ip("::1")) is None
    assert "outside the allowed networks" in (policy.refusal(_ip("10.0.0.5")) or "")
    assert "outside the allowed networks" in (policy.refusal(_ip("8.8.8.8")) or "")


def test_the_variable_sets_the_networks_and_metadata_stays_refused() -> None:
    policy = worker_policy({ALLOWED_VARIABLE: "10.0.0.0/8, 169.254.0.0/16"})
    assert policy.refusal(_ip("10.1.2.3")) is None
    assert "outside the allowed networks" in (policy.refusal(_ip("127.0.0.1")) or "")
    assert "link-local, metadata" in (policy.refusal(_ip("169.254.169.254")) or "")


def test_a_malformed_list_is_refused_not_widened() -> None:
    with pytest.raises(TargetRefused, match=ALLOWED_VARIABLE):
        worker_policy({ALLOWED_VARIABLE: "10.0.0.0/8,not-a-network"})


@pytest.mark.parametrize(
    ("url", "carried"),
    [
        ("http://[::ffff:169.254.169.254]/", "169.254.169.254"),  # IPv4-mapped
        ("http://[64:ff9b::a9fe:a9fe]/", "169.254.169.254"),  # NAT64
        ("http://[2002:a9fe:a9fe::1]/", "169.254.169.254"),  # 6to4
        ("http://[::ffff:10.0.0.5]:8000/v1", "10.0.0.5"),  # outside the default allowlist
    ],
)
def test_ipv4_inside_ipv6_is_judged_as_that_ipv4(url: str, carried: str) -> None:
    with pytest.raises(TargetRefused, match=f"carries {carried}"):
        check_target(url, worker_policy({}))


def test_ipv4_mapped_loopback_is_loopback() -> None:
    assert check_target("http://[::ffff:127.0.0.1]:8000/v1", worker_policy({})).address == _ip(
        "::ffff:127.0.0.1"
    )


def test_a_name_is_judged_by_every_address_it_resolves_to(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {"engine.test": ["127.0.0.1", "169.254.169.254"]}
    real = socket.getaddrinfo

    def fake(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    with pytest.raises(TargetRefused, match=r"engine\.test: 169\.254\.169\.254 is a link-local"):
        check_target("http://engine.test:8000/v1", worker_policy({}))
    answers["engine.test"] = ["127.0.0.1"]
    pinned = check_target("http://engine.test:8000/v1", worker_policy({}))
    assert pinned.pinned_url == "http://127.0.0.1:8000/v1" and pinned.authority == "engine.test:8000"


def test_a_name_that_does_not_resolve_is_refused() -> None:
    with pytest.raises(TargetRefused, match="does not resolve"):
        check_target("http://no-such-engine.invalid/v1", worker_policy({}))


class _Server:
    """A loopback HTTP server that records each request's Host header."""

    def __init__(self) -> None:
        self.hosts: list[str] = []
        self.connections = 0
        seen = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                seen.connections += 1
                super().setup()

            def do_GET(self) -> None:
                seen.hosts.append(self.headers.get("Host", ""))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.do_GET()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


async def _one_request(base_url: str) -> int:
    pool = Http1Pool(base_url)
    try:
        _, ex, _ = await pool.request(pool.build("POST", "/v1/completions", b"{}", {}))
        await asyncio.wait_for(ex.done, 5)
        return ex.resp.status
    finally:
        pool.close()


def test_the_measured_requests_reach_an_allowed_loopback_engine(
    server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ALLOWED_VARIABLE, "127.0.0.0/8")
    assert asyncio.run(_one_request(f"http://127.0.0.1:{server.port}")) == 200
    assert server.connections == 1


def test_a_refused_engine_is_never_connected_to(server: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOWED_VARIABLE, "10.0.0.0/8")
    with pytest.raises(TargetRefused, match=f"outside the allowed networks.*{ALLOWED_VARIABLE}"):
        asyncio.run(_one_request(f"http://127.0.0.1:{server.port}"))

    async def metrics() -> tuple[int, str | None]:
        async with aiohttp.ClientSession() as session:
            return await _get(session, f"http://127.0.0.1:{server.port}/metrics")

    with pytest.raises(TargetRefused):
        asyncio.run(metrics())
    assert server.connections == 0 and server.hosts == []


def test_connections_go_to_the_checked_address_with_the_name_as_host(
    server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolved once: a later lookup of the name (here: to a refused address) is never made
    for the connection, which goes to the checked address; the Host header is the name."""
    monkeypatch.delenv(ALLOWED_VARIABLE, raising=False)
    answers = iter(["127.0.0.1"])
    real = socket.getaddrinfo

    def fake(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "engine.test":
            address = next(answers, "169.254.169.254")  # a rebinding second answer
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    assert asyncio.run(_one_request(f"http://engine.test:{server.port}")) == 200
    assert server.hosts == [f"engine.test:{server.port}"]

    answers = iter(["127.0.0.1"])

    async def metrics() -> tuple[int, str | None]:
        async with aiohttp.ClientSession() as session:
            return await _get(session, f"http://engine.test:{server.port}/metrics")

    assert asyncio.run(metrics()) == (200, "ok")
    assert server.hosts[-1] == f"engine.test:{server.port}"
