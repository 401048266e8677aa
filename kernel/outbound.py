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
  second would otherwise hold a web worker for ever), and reads at most `max_bytes`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

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
    # Identity encoding: the size limit then counts the bytes that arrive (no gzip bomb).
    send_headers = {**(headers or {}), "Host": _host_header(target), "Accept-Encoding": "identity"}
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
