"""Requests the control plane makes to addresses users give it (engine endpoints it probes,
webhook receivers it calls): the one place that decides where such a request may go and
how long and how much it may take.

Every request:
- goes to http(s) only, to a host whose every resolved address passes the policy, and
  then to that checked address itself (the host name is kept for the Host header and TLS
  SNI), so a name that resolves elsewhere a second time (DNS rebinding) changes nothing;
- never goes to link-local, metadata, unspecified or multicast addresses, whatever the
  policy allows;
- judges an IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`,
  IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`,
  Teredo `2001::/32`) as that IPv4 address, since that is where the packets end up;
- refuses CGNAT (`100.64.0.0/10`) unless the allowed networks list it, and the host's own
  addresses (its interfaces, what its name resolves to) wherever loopback is refused:
  they reach the same services loopback does;
- follows no redirect (a 3xx is returned as it is, for the caller to report);
- ends by a total deadline, not only per-read timeouts (a server that trickles one byte a
  second would otherwise hold a web worker for ever), and reads at most `max_bytes`.
"""

from __future__ import annotations

import ipaddress
import itertools
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from kernel.errors import DomainError, FieldError

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Refused under every policy: cloud metadata services live in link-local space (AWS, GCP,
# Azure at 169.254.169.254, AWS IPv6 at fd00:ec2::254), Alibaba at 100.100.100.200.
ALWAYS_DENIED: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "169.254.0.0/16",
        "100.100.100.200/32",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "255.255.255.255/32",
        "::/128",
        "fe80::/10",
        "fd00:ec2::254/128",
        "ff00::/8",
    )
)
LOOPBACK: tuple[IPNetwork, ...] = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
PRIVATE: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
CGNAT = ipaddress.ip_network("100.64.0.0/10")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
# NAT64: the well-known prefix and the local-use one (RFC 8215), both with the IPv4 address
# in the last 32 bits (the /96 layout, the one NAT64 gateways use).
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def embedded_ipv4(address: IPAddress) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries (where its packets go), or ()."""
    if not isinstance(address, ipaddress.IPv6Address):
        return ()
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _IPV4_COMPATIBLE and int(address) > 1:  # `::` and `::1` are IPv6's own
        return (low32,)
    if any(address in net for net in _NAT64):
        return (low32,)
    if address.sixtofour is not None:  # 2002:AABB:CCDD::/48, bits 16-48
        return (address.sixtofour,)
    if address.teredo is not None:  # (server, client): the client is where it is delivered
        server, client = address.teredo
        return (client, server)
    return ()


def _proc_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read().splitlines()
    except (OSError, UnicodeError):  # not Linux, or /proc not mounted
        return []


def _fib_local_ipv4() -> list[IPAddress]:
    # Linux's routing table lists each local IPv4 address as a `/32 host LOCAL` leaf.
    lines = _proc_lines("/proc/net/fib_trie")
    return [
        ipaddress.ip_address(previous.split()[-1])
        for previous, line in itertools.pairwise(lines)
        if line.strip() == "/32 host LOCAL"
    ]


def _proc_ipv6() -> list[IPAddress]:
    lines = _proc_lines("/proc/net/if_inet6")
    return [ipaddress.IPv6Address(int(line.split()[0], 16)) for line in lines if line.strip()]


def host_addresses() -> set[IPAddress]:
    """Every address of this machine: its interfaces' (Linux /proc, no extra dependency)
    and what its own name resolves to."""
    found: set[IPAddress] = set(_fib_local_ipv4()) | set(_proc_ipv6())
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None)
    except (OSError, UnicodeError):
        infos = []
    for info in infos:
        found.add(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
    return found


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """A comma-separated list of CIDRs (an address alone is its own /32 or /128)."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            out.append(ipaddress.ip_network(part, strict=False))
    return tuple(out)


@dataclass(frozen=True)
class OutboundPolicy:
    """`allowed`: when given, every address must be in one of these networks; `denied`:
    no address may be in these (checked after `allowed`, beside ALWAYS_DENIED)."""

    allowed: tuple[IPNetwork, ...] | None = None
    denied: tuple[IPNetwork, ...] = ()

    def refusal(self, address: IPAddress) -> str | None:
        """Why `address` may not be reached, or None when it may."""
        for carried in embedded_ipv4(address):
            if why := self.refusal(carried):
                return f"{address} carries {carried}, and {why}"
        if embedded_ipv4(address):
            return None
        if any(address in net for net in ALWAYS_DENIED):
            return f"{address} is a link-local, metadata, multicast or unspecified address"
        if self.allowed is not None and not any(address in net for net in self.allowed):
            shown = ", ".join(str(n) for n in self.allowed) or "none"
            return f"{address} is outside the allowed networks ({shown})"
        if any(address in net for net in self.denied):
            return f"{address} is in a denied network (loopback or private)"
        if address in CGNAT and not any(address in net for net in self.allowed or ()):
            return f"{address} is a carrier-grade NAT address (100.64.0.0/10), not in the allowed networks"
        if not address.is_loopback and address in host_addresses() and self.refusal(_loopback_of(address)):
            return f"{address} is this host's own address, refused as loopback is"
        return None


def _loopback_of(address: IPAddress) -> IPAddress:
    return ipaddress.ip_address("127.0.0.1" if address.version == 4 else "::1")


class OutboundRefused(DomainError):
    """A URL the policy refuses: 400 naming the field, before anything is sent."""

    def __init__(self, field_path: str, message: str) -> None:
        super().__init__(
            detail=f"That address cannot be used: {message}.",
            status=400,
            code="address_refused",
            errors=[FieldError(field_path, message)],
        )


class OutboundFailed(Exception):
    """The request went out (or tried to) and did not end in a readable answer: connection
    refused, timeout, deadline, a body over the limit. `str()` says which, in words."""


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    address: IPAddress


@dataclass
class OutboundResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    elapsed_s: float
    truncated: bool = False
    address: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def json(self) -> Any:
        import json

        return json.loads(self.body)


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise OutboundFailed(f"the host name {host!r} does not resolve ({exc})") from None
    seen: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in seen:
            seen.append(address)
    return seen


def check_url(url: str, policy: OutboundPolicy, *, field_path: str = "url") -> Target:
    """The target `url` names, every resolved address checked against `policy`.
    Raises OutboundRefused (400) for a URL that may not be used; OutboundFailed when the
    host does not resolve."""
    if not isinstance(url, str) or len(url) > 2048:
        raise OutboundRefused(field_path, "give an http:// or https:// URL of at most 2048 characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise OutboundRefused(field_path, f"not a URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise OutboundRefused(field_path, f"only http and https URLs are allowed, not {scheme or 'none'!r}")
    host = parts.hostname or ""
    if not host:
        raise OutboundRefused(field_path, "the URL names no host")
    if parts.username or parts.password:
        raise OutboundRefused(field_path, "credentials in the URL are not allowed; use a secret reference")
    port = port or (443 if scheme == "https" else 80)
    addresses = _resolve(host, port)
    for address in addresses:
        why = policy.refusal(address)
        if why:
            raise OutboundRefused(field_path, f"{host} resolves to {why}")
    return Target(url=url, scheme=scheme, host=host, port=port, address=addresses[0])


def _pinned_url(target: Target) -> str:
    parts = urlsplit(target.url)
    literal = f"[{target.address}]" if target.address.version == 6 else str(target.address)
    return urlunsplit((parts.scheme, f"{literal}:{target.port}", parts.path or "/", parts.query, ""))


def request(
    method: str,
    url: str,
    policy: OutboundPolicy,
    *,
    field_path: str = "url",
    headers: dict[str, str] | None = None,
    content: bytes | None = None,
    deadline_s: float = 5.0,
    max_bytes: int = 1024 * 1024,
) -> OutboundResponse:
    """One request within the policy, a total deadline and a size limit. A body longer
    than `max_bytes` is cut there (`truncated=True`) rather than read on.

    The request runs in its own thread and the caller waits at most `deadline_s`: httpx's
    timeouts are per read, so a server that trickles bytes would outlast any of them. A
    thread left behind ends by its own read timeout (the same deadline) and is discarded."""
    target = check_url(url, policy, field_path=field_path)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["response"] = _send(target, method, headers, content, deadline_s, max_bytes)
        except Exception as exc:  # handed to the caller below
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="specpact-outbound", daemon=True)
    worker.start()
    worker.join(deadline_s)
    if worker.is_alive():
        raise OutboundFailed(f"no complete answer within {deadline_s:g} s")
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, OutboundFailed):
            raise error
        if isinstance(error, httpx.TimeoutException):
            raise OutboundFailed(f"no answer within {deadline_s:g} s")
        if isinstance(error, httpx.HTTPError):
            raise OutboundFailed(f"{type(error).__name__}: {error}")
        raise error
    response: OutboundResponse = outcome["response"]
    return response


def _send(
    target: Target,
    method: str,
    headers: dict[str, str] | None,
    content: bytes | None,
    deadline_s: float,
    max_bytes: int,
) -> OutboundResponse:
    started = time.monotonic()
    host_header = target.host if target.port in (80, 443) else f"{target.host}:{target.port}"
    # Identity encoding: the size limit then counts the bytes that arrive (no gzip bomb).
    send_headers = {**(headers or {}), "Host": host_header, "Accept-Encoding": "identity"}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    with (
        httpx.Client(timeout=httpx.Timeout(deadline_s), follow_redirects=False, trust_env=False) as client,
        client.stream(
            method, _pinned_url(target), headers=send_headers, content=content, extensions=extensions
        ) as response,
    ):
        chunks: list[bytes] = []
        size = 0
        truncated = False
        for chunk in response.iter_raw(16384):
            take = chunk[: max_bytes - size]
            chunks.append(take)
            size += len(take)
            if len(take) < len(chunk):
                truncated = True
                break
        return OutboundResponse(
            status=response.status_code,
            headers={k.lower(): v for k, v in response.headers.items()},
            body=b"".join(chunks),
            elapsed_s=time.monotonic() - started,
            truncated=truncated,
            address=str(target.address),
        )


def networks_text(networks: Iterable[IPNetwork]) -> str:
    return ", ".join(str(n) for n in networks)
