"""Outbound requests to addresses users give: refused before anything is sent where the
policy says no; bounded in time and size where it says yes; redirects never followed."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kernel.outbound import (
    LOOPBACK,
    PRIVATE,
    OutboundFailed,
    OutboundPolicy,
    OutboundRefused,
    check_url,
    parse_networks,
    request,
)

LOOPBACK_ONLY = OutboundPolicy(allowed=LOOPBACK)
PUBLIC_ONLY = OutboundPolicy(denied=LOOPBACK + PRIVATE)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Length", str(5 * 1024 * 1024))
            self.end_headers()
            self.wfile.write(b"x" * (5 * 1024 * 1024))
        elif self.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        else:
            body = f"host={self.headers['Host']}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def _serve(httpd: ThreadingHTTPServer) -> Iterator[int]:
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    for port in _serve(ThreadingHTTPServer(("127.0.0.1", 0), _Handler)):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def ipv6_server() -> Iterator[str]:
    for port in _serve(_IPv6Server(("::1", 0), _Handler)):
        yield f"http://[::1]:{port}"


def test_a_loopback_server_answers_when_the_policy_allows_loopback(server: str) -> None:
    answer = request("GET", f"{server}/hello", LOOPBACK_ONLY)
    assert answer.status == 200 and answer.body.startswith(b"host=127.0.0.1:")


def test_an_ipv6_host_is_sent_in_brackets(ipv6_server: str) -> None:
    """RFC 9110 §7.2: the Host header is the URL's authority; `::1:8000` names no host."""
    answer = request("GET", f"{ipv6_server}/hello", LOOPBACK_ONLY)
    port = ipv6_server.rsplit(":", 1)[1]
    assert answer.status == 200
    assert answer.body == f"host=[::1]:{port}".encode()


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0:8000/",
        "http://[::ffff:169.254.169.254]/",
        "http://100.100.100.200/",
    ],
)
def test_link_local_and_metadata_addresses_are_refused_whatever_the_policy(url: str) -> None:
    everything = OutboundPolicy(allowed=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")))
    with pytest.raises(OutboundRefused) as info:
        check_url(url, everything, field_path="base_url")
    assert info.value.status == 400 and info.value.errors[0].path == "base_url"


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/", "file:///etc/passwd", "gopher://127.0.0.1/", "127.0.0.1"]
)
def test_only_http_and_https_are_allowed(url: str) -> None:
    with pytest.raises(OutboundRefused, match="only http and https"):
        check_url(url, LOOPBACK_ONLY)


def test_a_hostname_resolving_to_loopback_is_refused_where_loopback_is_denied() -> None:
    with pytest.raises(OutboundRefused, match=r"localhost resolves to 127\.0\.0\.1 is in a denied network"):
        check_url("http://localhost:9/", PUBLIC_ONLY)


def test_an_address_outside_the_allowed_networks_is_refused() -> None:
    policy = OutboundPolicy(allowed=parse_networks("10.0.0.0/8, 192.168.0.0/16"))
    with pytest.raises(OutboundRefused, match="outside the allowed networks"):
        check_url("http://127.0.0.1:8000/", policy)
    assert check_url("http://10.1.2.3:8000/v1", policy).port == 8000


def test_credentials_in_the_url_are_refused() -> None:
    with pytest.raises(OutboundRefused, match="credentials"):
        check_url("http://user:secret@127.0.0.1/", LOOPBACK_ONLY)


def test_a_redirect_is_returned_not_followed(server: str) -> None:
    answer = request("GET", f"{server}/redirect", LOOPBACK_ONLY)
    assert answer.status == 302 and answer.headers["location"].startswith("http://169.254.169.254")


def test_a_large_body_is_cut_at_the_limit(server: str) -> None:
    answer = request("GET", f"{server}/big", LOOPBACK_ONLY, max_bytes=64 * 1024)
    assert answer.truncated and len(answer.body) == 64 * 1024


def test_a_server_that_trickles_bytes_is_abandoned_at_the_deadline(server: str) -> None:
    started = time.monotonic()
    with pytest.raises(OutboundFailed, match=r"within 0\.5 s"):
        request("GET", f"{server}/trickle", LOOPBACK_ONLY, deadline_s=0.5)
    assert time.monotonic() - started < 1.0


def test_a_refused_connection_is_a_failure_in_words() -> None:
    with pytest.raises(OutboundFailed, match="ConnectError"):
        request("GET", "http://127.0.0.1:9/", LOOPBACK_ONLY, deadline_s=2)
