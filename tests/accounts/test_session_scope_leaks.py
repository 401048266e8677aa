"""Every URL the project serves, walked with a signed-in user limited to one route
(UserRole.route_slugs) while other routes hold releases, runs, endpoints, audit events
and webhook deliveries: none of those routes' names may appear, and nothing may answer
500. The patterns come from Django's resolver, so a page added later without the route
check fails here (issue 25 point 3)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts_app.models import UserRole
from advice_app.models import AdviceRun
from advice_app.services import advice_run_create
from benchmarks_app.models import Run, Worker
from contracts_app.models import Route
from live_app.models import Endpoint
from tests.support.factories import make_token, make_user
from tests.support.world import World, build_world
from webhooks_app.models import Delivery, Subscription

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MINE = "support-chat"
THEIRS = ("contract-summaries", "polled-route")
# Identifying strings of the other routes: their slugs and their endpoints' names/URLs.
SECRETS = (*THEIRS, "prod-eu-west-1", "canary/v1")

# Django's admin admits staff only (the scoped user is not), and its catch-all patterns
# are regular expressions with nothing to fill in.
SKIPPED_PREFIXES = ("admin/",)
# Signing out (or in) mid-walk would walk the rest as someone else.
SKIPPED = {"logout/", "login/"}
# The OpenAPI document is the same text for everyone; its examples name contract-summaries.
STATIC = {"api/v1/schema/"}
# Parameters that name an object of a route: the other route's object must answer as a
# missing one does (the same status), never a 403 that tells it exists.
ROUTE_OWNED = {"slug", "number", "release_id", "run_id", "name", "request_id", "advice_id"}
GHOST = {"slug": "no-such-route", "number": "99", "release_id": "999999", "run_id": "999999",
         "name": "no-such-endpoint", "request_id": "999999", "advice_id": "999999"}  # fmt: skip


def _patterns(resolvers: list[Any], prefix: str = "") -> Iterator[str]:
    for entry in resolvers:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


def _values(world: World, other_user: Any) -> dict[str, str]:
    """What each path converter is filled with: an object of another route where the
    parameter names one (or a fleet-wide object where it has no route)."""
    run = Run.objects.filter(release=world.release).order_by("id").first()
    assert run is not None
    endpoint = Endpoint.objects.filter(route__slug="contract-summaries").order_by("name").first()
    assert endpoint is not None
    subscription = Subscription.objects.order_by("id").first()
    delivery = Delivery.objects.order_by("id").first()
    worker = Worker.objects.order_by("id").first()
    assert subscription is not None and delivery is not None and worker is not None
    token = make_token(other_user, "viewer", ["contract-summaries"]).token
    return {
        "advice_id": str(_their_advice(other_user).pk),
        "slug": "contract-summaries",
        "number": "1",
        "release_id": str(world.release.pk),
        "run_id": str(run.pk),
        "name": endpoint.name,
        "request_id": "1",
        "key": world.workload.name,
        "pk": str(world.workload.pk),
        "token_id": str(token.pk),
        "worker_id": str(worker.pk),
        "webhook_id": str(subscription.pk),
        "delivery_id": str(delivery.pk),
        "action": "approve",
        "content_type_id": "1",
        "object_id": "1",
        "id": "1",
    }


def _their_advice(operator: Any) -> AdviceRun:
    """An advice run of another route, asked through the service as an operator would."""
    route = Route.objects.with_active_version().get(slug="contract-summaries")
    lane = next(iter(route.active_version.document["measurement"]["workloads"]))
    return advice_run_create(
        route=route, lanes=[lane], candidates=[{"method": "ngram", "tokens": 4}], budget=100_000,
        seed=0, actor=operator, options={"looks": 1, "n_start": 8, "n_boot": 200},
    )  # fmt: skip


def _fill(pattern: str, values: dict[str, str]) -> str | None:
    if pattern.startswith("^") or "(?P<" in pattern:
        return None
    missing = [name for name in re.findall(r"<(?:\w+:)?(\w+)>", pattern) if name not in values]
    assert not missing, f"{pattern}: add a value for {missing} to _values"
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], pattern)


@pytest.fixture
def world(settings: Any, proposer: Any, approver: Any, operator: Any, admin: Any) -> World:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tests.audit.conftest import pem_of

    settings.WEBHOOK_ALLOW_LOOPBACK = True
    settings.AUDIT_SIGNING_KEY = pem_of(Ed25519PrivateKey.generate())
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    # /metrics answers scrapers from these networks whoever they are (not a session's
    # page); without them it is read with an unscoped token only, which the walk checks.
    settings.METRICS_ALLOWED_NETWORKS = ""
    return build_world(proposer=proposer, approver=approver, operator=operator, admin=admin)


def test_a_user_limited_to_one_route_sees_nothing_of_the_others_on_any_url(
    world: World, operator: Any
) -> None:
    # An admin, so that no role check hides what the route check must: only the scope does.
    scoped = make_user("sam-scoped")
    UserRole.objects.create(user=scoped, role="admin", route_slugs=[MINE])
    client = Client(raise_request_exception=False)
    client.force_login(scoped)
    values = _values(world, operator)

    # The user's own route is there (the walk is not passing because nothing shows).
    own = client.get(f"/routes/{MINE}/")
    assert own.status_code == 200 and MINE in own.content.decode()

    problems: list[str] = []
    walked = 0
    for pattern in _patterns(get_resolver().url_patterns):
        if pattern.startswith(SKIPPED_PREFIXES) or pattern in SKIPPED:
            continue
        path = _fill(pattern, values)
        if path is None:
            continue
        owned = set(re.findall(r"<(?:\w+:)?(\w+)>", pattern)) & ROUTE_OWNED
        for method in ("get", "post"):
            response = getattr(client, method)(path)
            walked += 1
            # A 404 may repeat what the URL itself says (the slug typed), nothing more.
            body = response.content.decode(errors="replace")
            if "slug" in owned:
                body = body.replace(values["slug"], "")
            if response.status_code >= 500:
                problems.append(f"{method.upper()} {path}: {response.status_code}")
            if owned:
                ghost = _fill(pattern, {**values, **GHOST})
                assert ghost is not None
                missing = getattr(client, method)(ghost).status_code
                if response.status_code != missing:
                    problems.append(
                        f"{method.upper()} {path}: {response.status_code}, where a missing one is {missing}"
                    )
            leaked = [s for s in SECRETS if s in body and pattern not in STATIC]
            if leaked:
                problems.append(f"{method.upper()} {path}: {response.status_code} shows {leaked}")
            location = response.get("Location", "")
            if any(s in location for s in SECRETS):
                problems.append(f"{method.upper()} {path}: redirects to {location}")
        if not owned and method == "post":
            problems += _filtered(client, path, pattern)
    assert walked > 100
    assert problems == [], "\n".join(problems)


def _filtered(client: Client, path: str, pattern: str) -> list[str]:
    """Lists filtered by another route's slug (`?route=`, the filter of releases, runs and
    the audit trail) answer as for a route that does not exist: the slug shows as often as
    a missing one's would (the form echoing it back), the other names not at all."""
    seen = client.get(path, {"route": THEIRS[0]})
    ghost = client.get(path, {"route": GHOST["slug"]})
    body = seen.content.decode(errors="replace")
    problems = []
    if seen.status_code >= 500 or seen.status_code != ghost.status_code:
        problems.append(f"GET {path}?route=: {seen.status_code}, where a missing one is {ghost.status_code}")
    if pattern not in STATIC:
        if body.count(THEIRS[0]) != ghost.content.decode(errors="replace").count(GHOST["slug"]):
            problems.append(f"GET {path}?route={THEIRS[0]}: names it more than a missing route")
        leaked = [s for s in SECRETS[1:] if s in body]
        if leaked:
            problems.append(f"GET {path}?route={THEIRS[0]}: shows {leaked}")
    return problems
