"""Registering, changing and deleting a route's endpoints.

An endpoint expecting `release:<id>` is written with that release's candidate
(`expected_version`): releases_app checks the release is open on the route and passes
the version (`releases_app.services.endpoints`); without one, the release is refused here
as not open, since live_app can't see releases."""

from __future__ import annotations

import re
from typing import Any

from django.db import IntegrityError, transaction

from accounts_app.permissions import ensure_route_access, has_role, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from contracts_app.models import ContractVersion, Route
from kernel.errors import Conflict, DomainError, FieldError, NotFound
from kernel.outbound import check_endpoint_url as check_engine_url
from live_app.choices import EndpointEngine, ProbeState
from live_app.expects import Expects
from live_app.metrics_host import metrics_host_refusal
from live_app.models import ENDPOINT_NAME_PATTERN, Endpoint, SecretBinding
from live_app.secrets import check_auth, hosts_outside, shown_auth


def _invalid(path: str, message: str) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=[FieldError(path, message)])


def check_endpoint_url(url: Any, path: str) -> str:
    if not isinstance(url, str) or not url:
        raise _invalid(path, "required: an http:// or https:// URL")
    check_engine_url(url, path)
    return url


def check_metrics_allowance(who: Actor, allowed: Any) -> bool:
    """Only an admin may allow a metrics_url on another host than base_url's."""
    if not isinstance(allowed, bool):
        raise _invalid("metrics_host_allowed", "true or false")
    if allowed:
        require_role(who, "admin")
    return allowed


def check_metrics_host(base_url: str, metrics_url: str, *, allowed: bool) -> None:
    why = metrics_host_refusal(base_url, metrics_url, allowed=allowed)
    if why:
        raise _invalid("metrics_url", why)


def check_engine(engine: Any) -> str:
    if engine not in EndpointEngine.values:
        raise _invalid("engine", f"one of {', '.join(EndpointEngine.values)}")
    return str(engine)


def check_expects(route: Route, expects: Any, version: ContractVersion | None) -> Expects:
    """The grammar; for `release:<id>`, the candidate version releases_app found for an
    open release of the route (None: there is none)."""
    parsed = Expects.parse(expects)
    if parsed is None:
        raise _invalid("expects", "active, or release:<id> (an open release of this route)")
    if parsed.release_id is not None and version is None:
        raise _invalid("expects", f"{route.slug!r} has no open release {parsed.release_id}")
    return parsed


def endpoint_snapshot(endpoint: Endpoint) -> dict[str, Any]:
    snapshot = {
        "name": endpoint.name,
        "base_url": endpoint.base_url,
        "metrics_url": endpoint.metrics_url,
        "metrics_host_allowed": endpoint.metrics_host_allowed,
        "engine": endpoint.engine,
        "expects": endpoint.expects,
        "auth": shown_auth(endpoint),
    }
    if endpoint.auth_dropped:
        snapshot["auth_dropped"] = endpoint.auth_dropped
    return snapshot


def _bound_urls(binding: SecretBinding | None, urls: list[str]) -> None:
    """A binding given with the endpoint must name every host its URLs are on (400 naming `auth`)."""
    outside = hosts_outside(binding, urls) if binding is not None else []
    if outside:
        assert binding is not None
        raise _invalid(
            "auth",
            f"the secret binding {binding.name!r} is sent only to {', '.join(binding.hosts)}, not to "
            f"{', '.join(outside)}: an admin adds the host to the binding first",
        )


def _dropped_words(binding: SecretBinding, outside: list[str]) -> str:
    return (
        f"binding {binding.name!r} dropped: it is sent only to {', '.join(binding.hosts)}, and the endpoint "
        f"moved to {', '.join(outside)}; an admin adds the host to the binding, then give auth again"
    )[:500]


def endpoint_create(
    *,
    route: Route | str,
    name: Any,
    base_url: Any,
    engine: Any,
    expects: Any = "active",
    expected_version: ContractVersion | None = None,
    metrics_url: Any = "",
    metrics_host_allowed: Any = False,
    auth: Any = None,
    actor: Actor | Any,
) -> Endpoint:
    """Register a named endpoint of `route` (operators). Every field checked before anything
    is written; the URLs against the allowed networks."""
    who = as_actor(actor)
    require_role(who, "operator")
    slug = route.slug if isinstance(route, Route) else str(route)
    route_obj = Route.objects.filter(slug=slug).first()
    if route_obj is None:
        raise NotFound(f"No route {slug!r}.")
    ensure_route_access(who, route_obj)
    if not isinstance(name, str) or not re.match(ENDPOINT_NAME_PATTERN, name):
        raise _invalid("name", "1-40 lowercase letters, digits and inner hyphens, e.g. prod-eu")
    check_engine(engine)
    base = check_endpoint_url(base_url, "base_url")
    metrics = check_endpoint_url(metrics_url, "metrics_url") if metrics_url not in (None, "") else ""
    allowed = check_metrics_allowance(who, metrics_host_allowed)
    check_metrics_host(base, metrics, allowed=allowed)
    expected = check_expects(route_obj, expects, expected_version)
    binding = check_auth(route_obj, auth)
    _bound_urls(binding, [base, metrics])
    with transaction.atomic():
        try:
            with transaction.atomic():
                endpoint = Endpoint.objects.create(
                    route=route_obj,
                    name=name,
                    base_url=base,
                    metrics_url=metrics,
                    metrics_host_allowed=allowed,
                    engine=engine,
                    expects=str(expected),
                    expected_version=None if expected.is_active else expected_version,
                    auth_binding=binding,
                    created_by=who.user,
                )
        except IntegrityError:
            raise Conflict(f"{slug!r} already has an endpoint {name!r}.", code="endpoint_exists") from None
        audit_record(
            actor=who,
            action="endpoint.created",
            obj_type="endpoint",
            obj_id=endpoint.pk,
            route=route_obj,
            after=endpoint_snapshot(endpoint),
        )
    return endpoint


_UNSET: Any = object()


def endpoint_update(
    *,
    endpoint: Endpoint,
    actor: Actor | Any,
    base_url: Any = _UNSET,
    engine: Any = _UNSET,
    expects: Any = _UNSET,
    expected_version: ContractVersion | None = None,
    metrics_url: Any = _UNSET,
    metrics_host_allowed: Any = _UNSET,
    auth: Any = _UNSET,
) -> Endpoint:
    """Change what an endpoint is (operators): typically point a canary at the release it
    now serves (`expects: release:<id>`). Each given field is checked as at registration;
    a change forgets the last probe's state (it judged another configuration): the
    endpoint is `unknown` until probed again."""
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, endpoint.route)
    changes: dict[str, Any] = {}
    if base_url is not _UNSET:
        changes["base_url"] = check_endpoint_url(base_url, "base_url")
    if metrics_url is not _UNSET:
        changes["metrics_url"] = check_endpoint_url(metrics_url, "metrics_url") if metrics_url else ""
    if metrics_host_allowed is not _UNSET:
        changes["metrics_host_allowed"] = check_metrics_allowance(who, metrics_host_allowed)
    if engine is not _UNSET:
        changes["engine"] = check_engine(engine)
    if expects is not _UNSET:
        parsed = check_expects(endpoint.route, expects, expected_version)
        changes["expects"] = str(parsed)
        changes["expected_version"] = None if parsed.is_active else expected_version
    if auth is not _UNSET:
        changes["auth_binding"], changes["auth_dropped"] = check_auth(endpoint.route, auth), ""
    with transaction.atomic():
        locked = Endpoint.objects.select_for_update().select_related("route").filter(pk=endpoint.pk).first()
        if locked is None:
            raise NotFound(f"The endpoint {endpoint.name!r} was deleted.")
        before = endpoint_snapshot(locked)
        _auth_for_new_urls(locked, changes, auth_given=auth is not _UNSET)
        changed = {k: v for k, v in changes.items() if getattr(locked, k) != v}
        if ({"base_url", "metrics_url"} & set(changed)) and not has_role(who, "admin"):
            # An admin allowed the metrics host they saw; someone else moving a URL ends it.
            changed["metrics_host_allowed"] = False
        check_metrics_host(
            changed.get("base_url", locked.base_url),
            changed.get("metrics_url", locked.metrics_url),
            allowed=changed.get("metrics_host_allowed", locked.metrics_host_allowed),
        )
        changed = {k: v for k, v in changed.items() if getattr(locked, k) != v}
        if not changed:
            return locked
        for key, value in changed.items():
            setattr(locked, key, value)
        locked.state, locked.last_probe = ProbeState.UNKNOWN, None
        locked.save(update_fields=[*changed, "state", "last_probe"])
        audit_record(
            actor=who,
            action="endpoint.updated",
            obj_type="endpoint",
            obj_id=locked.pk,
            route=locked.route,
            before=before,
            after=endpoint_snapshot(locked),
        )
    return locked


def _auth_for_new_urls(locked: Endpoint, changes: dict[str, Any], *, auth_given: bool) -> None:
    """The binding after the change must name the hosts of the URLs after it. Given with
    the change, it is refused otherwise (400); kept from before, it is dropped, with the
    reason on the endpoint, so moving an endpoint never takes its secret along."""
    binding = changes["auth_binding"] if auth_given else locked.auth_binding
    urls = [changes.get(k, getattr(locked, k)) for k in ("base_url", "metrics_url")]
    if auth_given:
        _bound_urls(binding, urls)
        return
    outside = hosts_outside(binding, urls) if binding is not None else []
    if binding is not None and outside:
        changes["auth_binding"], changes["auth_dropped"] = None, _dropped_words(binding, outside)


def endpoint_delete(*, endpoint: Endpoint, actor: Actor | Any, reason: str = "") -> None:
    """Admins only; its probes, samples and alerts go with it (the audit trail keeps them)."""
    who = as_actor(actor)
    require_role(who, "admin")
    ensure_route_access(who, endpoint.route)
    with transaction.atomic():
        before = {**endpoint_snapshot(endpoint), "state": endpoint.state}
        pk = endpoint.pk
        endpoint.delete()
        audit_record(
            actor=who,
            action="endpoint.deleted",
            obj_type="endpoint",
            obj_id=pk,
            route=endpoint.route,
            before=before,
            reason=reason,
        )
