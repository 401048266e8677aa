"""Where the worker may connect: its own allowlist, enforced where it opens connections
to an engine (worker/harness/http1.py for the measured requests, the `openai` engine's
metrics and server-info reads), whatever a run spec says.

The control plane already refuses a run whose `openai` targets are outside its
`ENDPOINT_ALLOWED_NETWORKS`; this is the worker's own fence, for a spec it did not expect
(a compromised or misconfigured control plane, a spec file given to `specpact-run`).
`SPECPACT_WORKER_ALLOWED_NETWORKS` (comma-separated CIDRs) says where; by default
loopback only (`127.0.0.0/8,::1/128`), which is where the engines it launches listen and
where the demo's and the tests' engines are. A worker benchmarking engines on other
machines lists their networks. The rule is worker/netpolicy.py's (the control plane's
too): link-local and metadata addresses never, IPv4 inside IPv6 judged as that IPv4.

The host is resolved once, every address checked, and the connection goes to the
checked address (the name stays the Host header), so a second lookup that answers
otherwise (DNS rebinding) changes nothing. A refused target is refused before any
connection, so nothing of what might answer there reaches a result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from worker.netpolicy import IPAddress, OutboundPolicy, Unresolvable, parse_networks, resolve

ALLOWED_VARIABLE = "SPECPACT_WORKER_ALLOWED_NETWORKS"
DEFAULT_ALLOWED = "127.0.0.0/8,::1/128"


class TargetRefused(ValueError):
    """A URL the worker will not connect to; `str()` says why, naming the variable."""


def worker_policy(environ: Mapping[str, str] | None = None) -> OutboundPolicy:
    """The allowlist from the environment (read per call, so a test or an operator's
    change applies to the next run). A malformed list is refused, not widened."""
    text = (environ if environ is not None else os.environ).get(ALLOWED_VARIABLE) or DEFAULT_ALLOWED
    try:
        return OutboundPolicy(allowed=parse_networks(text))
    except ValueError as exc:
        raise TargetRefused(f"{ALLOWED_VARIABLE} is not a list of networks ({exc})") from None


@dataclass(frozen=True)
class Pinned:
    """A checked URL: connect to `address`, say `authority` as the Host header."""

    url: str
    host: str
    port: int
    authority: str
    address: IPAddress

    @property
    def pinned_url(self) -> str:
        """The URL with the checked address in place of the name."""
        parts = urlsplit(self.url)
        literal = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return urlunsplit((parts.scheme, f"{literal}:{self.port}", parts.path, parts.query, ""))


def check_target(url: str, policy: OutboundPolicy | None = None) -> Pinned:
    """`url`'s host resolved once and every address checked against `policy` (default:
    worker_policy()). Raises TargetRefused before anything is sent."""
    policy = policy if policy is not None else worker_policy()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise TargetRefused(f"{url!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused(f"{url!r} is not an http:// or https:// URL with a host")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = resolve(parts.hostname, port)
    except Unresolvable as exc:
        raise TargetRefused(str(exc)) from None
    for address in addresses:
        if why := policy.refusal(address):
            raise TargetRefused(
                f"the worker does not connect to {parts.hostname}: {why} ({ALLOWED_VARIABLE})"
            )
    return Pinned(url=url, host=parts.hostname, port=port, authority=parts.netloc, address=addresses[0])
