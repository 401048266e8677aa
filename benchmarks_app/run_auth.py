"""The secret a standalone run's given endpoint may send: only one of the route's secret
bindings (live_app's `SecretBinding`), named by the requester as `binding` (its name) or,
as before, `api_key_env`/`api_key_file` (then it must be a binding's reference), for a
requester whose scope owns the route, to a base_url on the binding's hosts. Anything else
is a 400 naming the field: a requester can't have a worker send a secret of its choosing
(another route's token, the worker's own) to an address of its choosing.

Bindings are live_app's, which sits above this app, so live_app registers the lookup at
start-up (`register_binding_lookup`, live_app/apps.py); without one, no secret is accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accounts_app.permissions import ensure_route_access
from contracts_app.models import Route
from kernel.errors import DomainError, FieldError
from worker.secrets import host_allowed

# (route, name=…, or kind= + reference=) → the route's bindings so named, as the run spec
# carries them (worker.harness.plan.BoundSecret).
BindingLookup = Callable[..., list[dict[str, Any]]]
_lookup: list[BindingLookup] = []
GIVEN = ("binding", "api_key_env", "api_key_file")


def register_binding_lookup(lookup: BindingLookup) -> None:
    _lookup[:] = [lookup]


def _invalid(path: str, message: str) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=[FieldError(path, message)])


def _find(route: Route, key: str, value: str) -> list[dict[str, Any]]:
    if not _lookup:
        return []
    if key == "binding":
        return _lookup[0](route, name=value)
    return _lookup[0](route, kind=key.removeprefix("api_key_"), reference=value)


def bound_arm(route: Route, arm: str, endpoint: dict[str, Any], *, subject: Any) -> dict[str, Any]:
    """The arm's endpoint with the secret it names replaced by the route's binding
    (`auth_binding`), or a 400 naming the field."""
    given = {k: endpoint[k] for k in GIVEN if endpoint.get(k)}
    out = {k: v for k, v in endpoint.items() if k not in GIVEN}
    if not given:
        return out
    if len(given) > 1:
        raise _invalid(f"endpoints.{arm}", "name one secret: binding, api_key_env or api_key_file")
    key, value = next(iter(given.items()))
    path = f"endpoints.{arm}.{key}"
    ensure_route_access(subject, route)
    found = _find(route, key, value)
    if not found:
        raise _invalid(
            path,
            f"not one of {route.slug!r}'s secret bindings: an admin binds the secret to the route and its "
            f"hosts first (POST /api/v1/routes/{route.slug}/secret-bindings/)",
        )
    base_url = str(endpoint.get("base_url", ""))
    fits = [b for b in found if host_allowed(base_url, b["hosts"])]
    if not fits:
        hosts = sorted({h for b in found for h in b["hosts"]})
        raise _invalid(path, f"that secret is bound only to {', '.join(hosts)}: not to this base_url's host")
    return {**out, "auth_binding": fits[0]}
