"""Where webhook deliveries may go (kernel/outbound.py enforces it, at subscription and
at every delivery): http(s) only; never link-local or metadata addresses; loopback and
private networks only where an admin's setting allows them (WEBHOOK_ALLOW_LOOPBACK,
WEBHOOK_ALLOW_PRIVATE: a receiver inside the private network, a test's receiver)."""

from __future__ import annotations

from django.conf import settings

from kernel.outbound import LOOPBACK, PRIVATE, IPNetwork, OutboundPolicy


def delivery_policy() -> OutboundPolicy:
    denied: tuple[IPNetwork, ...] = ()
    if not settings.WEBHOOK_ALLOW_LOOPBACK:
        denied += LOOPBACK
    if not settings.WEBHOOK_ALLOW_PRIVATE:
        denied += PRIVATE
    return OutboundPolicy(denied=denied)
