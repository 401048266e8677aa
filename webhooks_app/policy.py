"""Where webhook deliveries may go (kernel/outbound.py enforces it, at subscription and
at every delivery): http(s) only; never link-local or metadata addresses; loopback and
private networks only where an admin's setting allows them (WEBHOOK_ALLOW_LOOPBACK,
WEBHOOK_ALLOW_PRIVATE: a receiver inside the private network, a test's receiver)."""

from __future__ import annotations

from django.conf import settings

from kernel.outbound import LOOPBACK, PRIVATE, IPNetwork, OutboundPolicy


def delivery_policy() -> OutboundPolicy:
    denied: tuple[IPNetwork, ...] = ()
    allows: list[str] = []
    if not settings.WEBHOOK_ALLOW_LOOPBACK:
        denied += LOOPBACK
        allows.append("WEBHOOK_ALLOW_LOOPBACK=true allows loopback addresses")
    if not settings.WEBHOOK_ALLOW_PRIVATE:
        denied += PRIVATE
        allows.append("WEBHOOK_ALLOW_PRIVATE=true allows private ones")
    hint = "; ".join(allows) + " (server settings)" if allows else ""
    return OutboundPolicy(denied=denied, denied_hint=hint)
