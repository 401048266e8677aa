"""Secrets as bindings: an admin binds a secret to a route and to the hosts it may be sent
to (`SecretBinding`); an endpoint names one of its route's bindings (`{"binding": NAME}`),
never a variable or a file. The secret itself is read only when a request to one of the
binding's hosts goes out, and is never stored, logged or returned.

Where a binding reads from is held to the control plane's fences: variables whose names
start with `ENDPOINT_SECRET_ENV_PREFIX`, files under one of `ENDPOINT_SECRET_DIRS` (read
without following links, worker/secrets.py), so not even an admin's binding can send the
control plane's own secrets (`SECRET_KEY`, `DATABASE_URL`, /etc/…) away. The hosts keep a
route's operator, who may change an endpoint's URLs, from sending the secret anywhere else:
a URL outside them gets no secret (`auth_headers`), and moving an endpoint there drops its
binding (live_app/services/endpoints.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings

from kernel.errors import DomainError, FieldError
from live_app.choices import SecretKind
from live_app.models import Endpoint, SecretBinding
from worker.secrets import (
    SecretUnavailable,
    env_name_allowed,
    host_allowed,
    normalise_host,
    path_allowed,
    read_bound_secret,
    url_host,
)

# probes.py catches it by this name: the binding was stored, but its secret can't be sent now.
__all__ = [
    "SecretUnavailable",
    "auth_headers",
    "binding_spec",
    "bindings_for_run",
    "check_auth",
    "check_hosts",
    "check_reference",
    "hosts_outside",
    "shown_auth",
]

MAX_HOSTS = 32
BINDINGS_API = "POST /api/v1/routes/{slug}/secret-bindings/"


def _invalid(path: str, message: str) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=[FieldError(path, message)])


def check_reference(kind: Any, reference: Any) -> str:
    """A binding's reference within the control plane's fences, or a 400 naming `reference`."""
    if kind not in SecretKind.values:
        raise _invalid("kind", "env (an environment variable) or file (a file path)")
    if not isinstance(reference, str) or not reference:
        raise _invalid("reference", "a variable name or a file path: where the secret is, never the secret")
    if kind == SecretKind.ENV:
        prefix = settings.ENDPOINT_SECRET_ENV_PREFIX
        if not env_name_allowed(reference, env_prefix=prefix):
            raise _invalid("reference", f"an upper-case variable name starting with {prefix}")
        return reference
    path = Path(reference)
    if not path.is_absolute() or ".." in path.parts:
        raise _invalid("reference", "an absolute path without '..'")
    dirs = settings.ENDPOINT_SECRET_DIRS
    if not path_allowed(path, secret_dirs=dirs):
        shown = ", ".join(str(d) for d in dirs) or "none configured"
        raise _invalid("reference", f"must be a file under one of ENDPOINT_SECRET_DIRS ({shown})")
    return reference


def check_hosts(hosts: Any) -> list[str]:
    """The hosts normalised (lower-case, IPv6 bracketed, duplicates gone), or a 400 naming
    the entry that isn't a host."""
    if not isinstance(hosts, list) or not hosts or len(hosts) > MAX_HOSTS:
        raise _invalid(
            "hosts", f"a list of 1-{MAX_HOSTS} hosts (host or host:port) the secret may be sent to"
        )
    out: list[str] = []
    for i, entry in enumerate(hosts):
        try:
            host = normalise_host(entry)
        except ValueError as exc:
            raise _invalid(f"hosts[{i}]", str(exc)) from None
        if host not in out:
            out.append(host)
    return out


def check_auth(route: Any, auth: Any) -> SecretBinding | None:
    """`{"binding": NAME}` → that binding of `route`; None → no auth; anything else a 400
    naming `auth` (a variable or a file named directly is the old shape: bind it first)."""
    if auth is None:
        return None
    slug = getattr(route, "slug", route)
    if isinstance(auth, dict) and ({"env", "file"} & set(auth)):
        raise _invalid(
            "auth",
            "a secret is no longer named here: an admin binds it to the route and its hosts first "
            f'({BINDINGS_API.format(slug=slug)}), then give {{"binding": NAME}}',
        )
    if not isinstance(auth, dict) or set(auth) != {"binding"} or not isinstance(auth["binding"], str):
        raise _invalid("auth", '{"binding": NAME}: one of the route\'s secret bindings, never the secret')
    binding = SecretBinding.objects.filter(route=route, name=auth["binding"]).first()
    if binding is None:
        raise _invalid("auth", f"{slug!r} has no secret binding {auth['binding']!r}")
    return binding


def hosts_outside(binding: SecretBinding, urls: list[str]) -> list[str]:
    """The hosts of `urls` the binding doesn't name (its secret would not be sent there)."""
    return [url_host(u) for u in urls if u and not host_allowed(u, binding.hosts)]


def endpoint_urls(endpoint: Endpoint) -> list[str]:
    """Every URL a probe of the endpoint sends to (the metrics URL defaults to the base URL's host)."""
    return [u for u in (endpoint.base_url, endpoint.metrics_url) if u]


def shown_auth(endpoint: Endpoint) -> dict[str, Any] | None:
    """What the API and the audit trail show: the binding's name and where it reads from,
    which are not secret."""
    binding = endpoint.auth_binding
    if binding is None:
        return None
    return {"binding": binding.name, binding.kind: binding.reference}


def binding_spec(binding: SecretBinding) -> dict[str, Any]:
    """The binding as a run spec carries it (worker.harness.plan.BoundSecret)."""
    return {
        "route": binding.route.slug,
        "name": binding.name,
        "kind": binding.kind,
        "reference": binding.reference,
        "hosts": list(binding.hosts),
    }


def bindings_for_run(
    route: Any, *, name: str | None = None, kind: str | None = None, reference: str | None = None
) -> list[dict[str, Any]]:
    """A route's binding by name, or those reading from one place, as a run spec carries
    them (benchmarks_app.run_auth asks, for a standalone run)."""
    found = SecretBinding.objects.filter(route=route).select_related("route").order_by("name")
    found = found.filter(name=name) if name is not None else found.filter(kind=kind, reference=reference)
    return [binding_spec(b) for b in found]


def auth_headers(endpoint: Endpoint, *urls: str) -> dict[str, str]:
    """The headers for requests to `urls` (all of them: a probe's one set of headers goes to
    each): `Authorization: Bearer <secret>` (vLLM's, SGLang's and llama-server's
    `--api-key` check that header), none when the endpoint has no binding, and
    SecretUnavailable when a URL's host is not one the binding names or the secret can't
    be read."""
    binding = endpoint.auth_binding
    if binding is None:
        return {}
    secret = read_bound_secret(
        name=binding.name,
        kind=binding.kind,
        reference=binding.reference,
        hosts=binding.hosts,
        urls=urls,
        env_prefix=settings.ENDPOINT_SECRET_ENV_PREFIX,
        secret_dirs=settings.ENDPOINT_SECRET_DIRS,
        environ=os.environ,
        reader="the control plane",
        dirs_setting="ENDPOINT_SECRET_DIRS",
    )
    return {"Authorization": f"Bearer {secret}"}
