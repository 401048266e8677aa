"""Where an endpoint's `metrics_url` may be: on its `base_url`'s host, any port, unless an
admin allowed another host for it (`Endpoint.metrics_host_allowed`).

Any port, because a metrics page on another port of the same machine is the usual layout:
a Prometheus exporter sidecar in the engine's pod shares the pod's network namespace (its
address, not its port), and servers often export metrics on a port of their own. Another
host is another machine: a probe reading it reads something that is not the endpoint, so
an operator may not point it there alone. The host is compared as written (a name to the
same name, an address to the same address): resolving names here would make the rule
depend on what DNS says at the time of the check.

The one rule for both the writes (live_app.services.endpoints) and the probe
(live_app.services.probes), which refuses to read a metrics URL that no longer passes it.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

ADMIN_CAN_ALLOW = "an admin can allow another host for this endpoint (metrics_host_allowed)"


def host_of(url: str) -> str:
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.lower()


def metrics_host_refusal(base_url: str, metrics_url: str, *, allowed: bool) -> str | None:
    """Why `metrics_url` may not be read for an endpoint at `base_url`, or None."""
    if not metrics_url or allowed:
        return None
    base, metrics = host_of(base_url), host_of(metrics_url)
    if metrics == base:
        return None
    return f"must be on base_url's host ({base}, any port), not {metrics or 'no host'}; {ADMIN_CAN_ALLOW}"
