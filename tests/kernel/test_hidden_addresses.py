"""IPv4 addresses hidden in IPv6 forms are judged as the IPv4 address they carry; CGNAT
and the host's own addresses are refused unless allowed (kernel/outbound.py)."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kernel.outbound import (
    LOOPBACK,
    PRIVATE,
    OutboundPolicy,
    OutboundRefused,
    check_url,
    embedded_ipv4,
    host_addresses,
    parse_networks,
    request,
)

LOOPBACK_ONLY = OutboundPolicy(allowed=LOOPBACK)
PUBLIC_ONLY = OutboundPolicy(denied=LOOPBACK + PRIVATE)
ANYWHERE = OutboundPolicy()

HIDDEN_LOOPBACK = [
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::7f00:1",  # IPv4-compatible
    "64:ff9b::7f00:1",  # NAT64, well-known prefix
    "64:ff9b:1::7f00:1",  # NAT64, local-use prefix
    "2002:7f00:1::1",  # 6to4: the IPv4 address is bits 16-48
    "2001:0:7f00:1:8000:ffff:80ff:fffe",  # Teredo: server 127.0.0.1, client ~7f00fffe ^ … = 127.0.0.1
]


class _Hello(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")


@pytest.fixture(scope="module")
def anywhere_server() -> Iterator[int]:
    """A server on every IPv4 interface (so on the host's own addresses too): its port."""
    httpd = ThreadingHTTPServer(("0.0.0.0", 0), _Hello)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("literal", HIDDEN_LOOPBACK)
def test_each_ipv6_form_carries_loopback_and_is_judged_as_loopback(literal: str) -> None:
    carried = embedded_ipv4(ipaddress.ip_address(literal))
    assert carried and carried[0] == ipaddress.ip_address("127.0.0.1"), carried
    with pytest.raises(OutboundRefused, match=r"carries 127\.0\.0\.1.*denied network"):
        check_url(f"http://[{literal}]:9/", PUBLIC_ONLY)
    assert check_url(f"http://[{literal}]:9/", LOOPBACK_ONLY).port == 9


@pytest.mark.parametrize(
    "literal",
    [
        "::ffff:10.1.2.3",
        "::a01:203",
        "64:ff9b::a01:203",
        "2002:a01:203::",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "2002:a9fe:a9fe::1",
    ],
)
def test_private_and_metadata_addresses_in_ipv6_forms_are_refused(literal: str) -> None:
    with pytest.raises(OutboundRefused, match="carries"):
        check_url(f"http://[{literal}]/", PUBLIC_ONLY, field_path="url")


def test_a_public_address_in_an_ipv6_form_passes_where_public_addresses_do() -> None:
    for literal in ("::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"):
        assert check_url(f"http://[{literal}]/", PUBLIC_ONLY).address == ipaddress.ip_address(literal)
    assert embedded_ipv4(ipaddress.ip_address("2001:4860:4860::8888")) == ()  # not Teredo
    assert embedded_ipv4(ipaddress.ip_address("::1")) == ()  # IPv6's own loopback


def test_a_real_connection_to_mapped_loopback_goes_through_where_loopback_is_allowed(
    anywhere_server: int,
) -> None:
    answer = request("GET", f"http://[::ffff:127.0.0.1]:{anywhere_server}/", LOOPBACK_ONLY)
    assert answer.status == 200 and answer.body == b"hello"
    with pytest.raises(OutboundRefused):
        request("GET", f"http://[::ffff:127.0.0.1]:{anywhere_server}/", PUBLIC_ONLY)


def test_every_resolved_address_is_judged_hidden_forms_included(monkeypatch: Any) -> None:
    # A name whose first answer is public and whose second hides loopback.
    answers = [("8.8.8.8", 80), ("::7f00:1", 80, 0, 0)]
    real = socket.getaddrinfo

    def fake_getaddrinfo(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        if host != "hook.example":
            return real(host, *args, **kwargs)
        family = {2: socket.AF_INET, 4: socket.AF_INET6}
        return [(family[len(a)], socket.SOCK_STREAM, 6, "", a) for a in answers]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(OutboundRefused, match=r"hook\.example resolves to ::7f00:1 carries 127\.0\.0\.1"):
        check_url("http://hook.example/", PUBLIC_ONLY)


def test_cgnat_is_refused_unless_the_allowed_networks_list_it() -> None:
    with pytest.raises(OutboundRefused, match="carrier-grade NAT"):
        check_url("http://100.64.0.1/", PUBLIC_ONLY)
    with pytest.raises(OutboundRefused, match="carrier-grade NAT"):
        check_url("http://[::ffff:100.127.255.254]/", ANYWHERE)
    listed = OutboundPolicy(allowed=parse_networks("10.0.0.0/8, 100.64.0.0/10"))
    assert check_url("http://100.64.0.1/", listed).port == 80


def _own_non_loopback() -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    own = [a for a in host_addresses() if not a.is_loopback and not a.is_link_local]
    if not own:
        pytest.skip("this machine has no address besides loopback and link-local")
    return own


def test_the_hosts_own_addresses_are_known() -> None:
    resolved = {
        ipaddress.ip_address(str(info[4][0]).split("%")[0])
        for info in socket.getaddrinfo(socket.gethostname(), None)
    }
    assert resolved <= host_addresses()
    assert ipaddress.ip_address("127.0.0.1") in host_addresses()


def test_the_hosts_own_address_is_refused_where_loopback_is_and_allowed_where_loopback_is(
    anywhere_server: int,
) -> None:
    no_loopback = OutboundPolicy(denied=LOOPBACK)
    for address in _own_non_loopback():
        urls = [f"http://[{address}]:{anywhere_server}/"] if address.version == 6 else [
            f"http://{address}:{anywhere_server}/",
            f"http://[::ffff:{address}]:{anywhere_server}/",  # and hidden in IPv6
        ]  # fmt: skip
        for url in urls:
            with pytest.raises(OutboundRefused, match="this host's own address"):
                check_url(url, no_loopback)
            # Where loopback is allowed, so is the host (a test's receiver on this machine).
            assert check_url(url, ANYWHERE).port == anywhere_server
        if address.version == 4:  # the server listens on every IPv4 interface
            assert request("GET", urls[0], ANYWHERE).body == b"hello"
