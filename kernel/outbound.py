"""Requests the control plane makes to addresses users give it (engine endpoints it probes,
webhook receivers it calls): the one place that decides where such a request may go and
how long and how much it may take.

Every request:
- goes to http(s) only, to a host whose every resolved address passes the policy, and
  then to that checked address itself (the host name is kept for the Host header and TLS
  SNI), so a name that resolves elsewhere a second time (DNS rebinding) changes nothing;
- never goes to link-local, metadata, unspecified or multicast addresses, whatever the
  policy allows (the address rule itself is worker/netpolicy.py, shared with the worker);
- judges an IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`,
  IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`,
  Teredo `2001::/32`) as that IPv4 address, since that is where the packets end up;
- refuses CGNAT (`100.64.0.0/10`) unless the allowed networks list it, and the host's own
  addresses (its interfaces, what its name resolves to) wherever loopback is refused:
  they reach the same services loopback does;
- follows no redirect (a 3xx is returned as it is, for the caller to report);
- ends by a total deadline, not only per-read timeouts (a server that trickles one byte a
  second would otherwise hold its caller for ever), in the caller's thread (no helper
  thread outlives it), and reads at most `max_bytes`.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore

from kernel.errors import DomainError, FieldError

# The address rule is the worker's pure module, so that the worker enforces the very same
# one at connect time; re-exported here for the control plane's callers.
from worker.netpolicy import (
    ALWAYS_DENIED,
    CGNAT,
    LOOPBACK,
    PRIVATE,
    IPAddress,
    IPNetwork,
    OutboundPolicy,
    Unresolvable,
    embedded_ipv4,
    host_addresses,
    parse_networks,
    resolve,
)

__all__ = [
    "ALWAYS_DENIED",
    "CGNAT",
    "LOOPBACK",
    "PRIVATE",
    "IPAddress",
    "IPNetwork",
    "OutboundFailed",
    "OutboundPolicy",
    "OutboundRefused",
    "OutboundResponse",
    "Target",
    "check_endpoint_url",
    "check_url",
    "embedded_ipv4",
    "endpoint_policy",
    "host_addresses",
    "networks_text",
    "parse_networks",
    "request",
]


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
        return resolve(host, port)
    except Unresolvable as exc:
        raise OutboundFailed(str(exc)) from None


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


def endpoint_policy() -> OutboundPolicy:
    """Where engines may be, for every caller that reaches one: live endpoints the control
    plane probes, and the `openai` targets of runs and releases that workers call. One
    setting, `ENDPOINT_ALLOWED_NETWORKS` (link-local and metadata addresses are refused
    whatever it says)."""
    from django.conf import settings  # read per call: tests and operators change it live

    return OutboundPolicy(allowed=parse_networks(settings.ENDPOINT_ALLOWED_NETWORKS or ""))


def check_endpoint_url(url: str, field_path: str) -> Target:
    """`url` checked against endpoint_policy(); a name that does not resolve cannot be
    checked, so it is refused too (400 naming `field_path`)."""
    try:
        return check_url(url, endpoint_policy(), field_path=field_path)
    except OutboundRefused as exc:  # the setting named, so the operator knows what decides
        raise OutboundRefused(field_path, f"{exc.errors[0].message} (ENDPOINT_ALLOWED_NETWORKS)") from None
    except OutboundFailed as exc:
        raise OutboundRefused(field_path, f"{exc} (ENDPOINT_ALLOWED_NETWORKS)") from None


def _host_header(target: Target) -> str:
    """The Host header for `target` (RFC 9110 §7.2: uri-host [":" port]): an IPv6 literal
    in brackets, as in a URL (`urlsplit().hostname` drops them); the port unless it is the
    scheme's default."""
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


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

    It runs in the caller's thread, and every socket operation (connect, TLS handshake,
    each write and read) waits at most what is left of `deadline_s`: per-read timeouts
    alone (httpx's) let a server that trickles a byte a second outlast any of them, and a
    helper thread left behind to finish such a read is a thread per request leaked. Here
    the request is over, and its socket closed, when the deadline is."""
    target = check_url(url, policy, field_path=field_path)
    ends_at = time.monotonic() + deadline_s
    try:
        return _send(target, method, headers, content, ends_at, max_bytes)
    except httpcore.TimeoutException:
        left = ends_at - time.monotonic()
        raise OutboundFailed(
            f"no complete answer within {deadline_s:g} s"
            if left <= 0.05
            else f"no answer within {deadline_s:g} s"
        ) from None
    except (httpcore.NetworkError, httpcore.ProtocolError) as exc:
        raise OutboundFailed(f"{type(exc).__name__}: {exc}") from None


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every operation ends by `ends_at` (a shared, absolute deadline)."""

    def __init__(self, inner: httpcore.NetworkStream, ends_at: float) -> None:
        self.inner, self.ends_at = inner, ends_at

    def _left(self, timeout: float | None) -> float:
        left = self.ends_at - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the request's deadline passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, self._left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, self._left(timeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        # CPython bounds the whole handshake by the socket's timeout (_ssl.c, do_handshake).
        tls = self.inner.start_tls(ssl_context, server_hostname, self._left(timeout))
        return _DeadlineStream(tls, self.ends_at)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, ends_at: float) -> None:
        self.inner, self.ends_at = httpcore.SyncBackend(), ends_at

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = self.ends_at - time.monotonic()
        if left <= 0:
            raise httpcore.ConnectTimeout("the request's deadline passed")
        wait = left if timeout is None else min(timeout, left)
        stream = self.inner.connect_tcp(host, port, wait, local_address, socket_options)
        return _DeadlineStream(stream, self.ends_at)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not an outbound target")

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, self.ends_at - time.monotonic())))


def _send(
    target: Target,
    method: str,
    headers: dict[str, str] | None,
    content: bytes | None,
    ends_at: float,
    max_bytes: int,
) -> OutboundResponse:
    started = time.monotonic()
    # Identity encoding: the size limit then counts the bytes that arrive (no gzip bomb).
    given = {**(headers or {}), "Host": _host_header(target), "Accept-Encoding": "identity"}
    if content is not None:  # httpcore frames nothing itself (httpx did)
        given["Content-Length"] = str(len(content))
    send_headers: list[tuple[bytes | str, bytes | str]] = list(given.items())
    extensions: dict[str, Any] = {"timeout": {"connect": None, "read": None, "write": None, "pool": None}}
    if target.scheme == "https":
        extensions["sni_hostname"] = target.host
    # httpcore itself: no redirects followed, no proxy from the environment, and the
    # network backend is ours (httpx's transport does not take one).
    with (
        httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(), network_backend=_DeadlineBackend(ends_at), retries=0
        ) as pool,
        pool.stream(
            method, _pinned_url(target), headers=send_headers, content=content, extensions=extensions
        ) as response,
    ):
        chunks: list[bytes] = []
        size = 0
        truncated = False
        for chunk in response.iter_stream():
            take = chunk[: max_bytes - size]
            chunks.append(take)
            size += len(take)
            if len(take) < len(chunk):
                truncated = True
                break
        return OutboundResponse(
            status=response.status,
            headers={k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers},
            body=b"".join(chunks),
            elapsed_s=time.monotonic() - started,
            truncated=truncated,
            address=str(target.address),
        )


def networks_text(networks: Iterable[IPNetwork]) -> str:
    return ", ".join(str(n) for n in networks)
