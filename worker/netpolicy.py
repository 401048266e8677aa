"""Which addresses a request may go to: the one rule the control plane's outbound guard
(kernel/outbound.py) and the worker's (worker/outbound.py) both apply.

Pure standard library, so the worker (which imports nothing of the control plane) and the
kernel (which imports no app but this one module of the worker's) share it:
- link-local, metadata, unspecified and multicast addresses are refused under every policy;
- an IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
  `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo
  `2001::/32`) is judged as that IPv4 address, since that is where the packets end up;
- CGNAT (`100.64.0.0/10`) is refused unless the allowed networks list it, and the host's
  own addresses (its interfaces, what its name resolves to) wherever loopback is refused:
  they reach the same services loopback does.
"""

from __future__ import annotations

import ipaddress
import itertools
import socket
from dataclasses import dataclass

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
    # What allows a denied network, said with the refusal ("WEBHOOK_ALLOW_LOOPBACK=true
    # allows loopback"): the caller's own settings, which this module doesn't know.
    denied_hint: str = ""

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
            hint = f"; {self.denied_hint}" if self.denied_hint else ""
            return f"{address} is in a denied network (loopback or private){hint}"
        if address in CGNAT and not any(address in net for net in self.allowed or ()):
            return f"{address} is a carrier-grade NAT address (100.64.0.0/10), not in the allowed networks"
        if not address.is_loopback and address in host_addresses() and self.refusal(_loopback_of(address)):
            hint = f"; {self.denied_hint}" if self.denied_hint else ""
            return f"{address} is this host's own address, refused as loopback is{hint}"
        return None


def _loopback_of(address: IPAddress) -> IPAddress:
    return ipaddress.ip_address("127.0.0.1" if address.version == 4 else "::1")


class Unresolvable(OSError):
    """A host name that resolves to no address (or is no valid name)."""


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` names, in the resolver's order, each once (an IP literal, with
    or without brackets, is itself). Checked by the caller, which then connects to one of
    these and not to the name again (a second lookup could answer otherwise)."""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unresolvable(f"the host name {host!r} does not resolve ({exc})") from None
    seen: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in seen:
            seen.append(address)
    return seen
