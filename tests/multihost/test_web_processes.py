"""Two web processes, one state: what one process counts, stores or caches, the other sees
(issue 26, point 3). Each test here would pass against a single process and fails against
two if that state lived in a process (a memory cache, a module's dict, a local lock)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from django.core.cache.backends.redis import RedisCache

from audit_app.models import AuditEvent
from audit_app.verification import audit_status
from benchmarks.control_plane.server import PROXY_HEADERS
from contracts_app.models import Route
from dashboard_app.selectors.evidence import progress_context
from dashboard_app.selectors.figure_cache import figures_key
from releases_app.models import Release
from tests.multihost.conftest import LOGIN_FREE, TOKEN_RATE, Fleet
from tests.support.benchmarked import benchmarked_release
from tests.support.factories import PASSWORD, make_token, make_user
from tests.support.gunicorn import LiveServer

pytestmark = pytest.mark.integration

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _sign_in(web: LiveServer, username: str, password: str) -> httpx.Response:
    """The login form, as a browser sends it through the proxy (CSRF cookie and field)."""
    origin = web.base_url.replace("http://", "https://")
    with httpx.Client(base_url=web.base_url, headers=PROXY_HEADERS, timeout=60) as client:
        form = client.get("/login/")
        csrf = form.cookies.get("csrftoken")
        field = CSRF_FIELD.search(form.text)
        assert csrf and field, form.text[:500]
        return client.post(
            "/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": field.group(1)},
            headers={"Origin": origin, "Referer": f"{origin}/login/", "Cookie": f"csrftoken={csrf}"},
        )


def test_failed_sign_ins_on_one_port_count_on_the_other(transactional_db: None, fleet: Fleet) -> None:
    make_user("pat-multihost", "viewer")
    a, b = fleet.web
    for _ in range(LOGIN_FREE - 1):
        assert _sign_in(a, "pat-multihost", "wrong").status_code == 200  # the form, with its error
    locked = _sign_in(b, "pat-multihost", "wrong")  # B's first failure, the name's third
    assert locked.status_code == 429, locked.text[:300]
    assert int(locked.headers["Retry-After"]) >= 1
    assert AuditEvent.objects.filter(action="login.locked_out", object_id="pat-multihost").count() == 1


def test_a_session_signed_in_on_one_port_is_signed_in_on_the_other(
    transactional_db: None, fleet: Fleet
) -> None:
    make_user("sam-multihost", "viewer")
    a, b = fleet.web
    signed_in = _sign_in(a, "sam-multihost", PASSWORD)
    assert signed_in.status_code == 302, signed_in.text[:300]
    cookie = {"Cookie": f"sessionid={signed_in.cookies['sessionid']}"}
    with b.client(**cookie) as client:
        page = client.get("/")
    assert page.status_code == 200 and "sam-multihost" in page.text


def test_the_api_throttle_counts_a_token_across_both_ports(transactional_db: None, fleet: Fleet) -> None:
    key = make_token(make_user("tess-multihost", "viewer"), "viewer").key
    a, b = fleet.web
    with a.client(key) as on_a, b.client(key) as on_b:
        for n in range(TOKEN_RATE):
            answer = (on_a if n % 2 else on_b).get("/api/v1/routes/")
            assert answer.status_code == 200, (n, answer.text[:300])
        # Each port saw half the rate: only a shared count has reached it.
        for client in (on_a, on_b):
            refused = client.get("/api/v1/routes/")
            assert refused.status_code == 429, refused.text[:300]
            assert refused.headers["Content-Type"].startswith("application/problem+json")
            assert int(refused.headers["Retry-After"]) >= 1


def test_an_idempotency_key_replayed_on_the_other_port_answers_the_same(
    transactional_db: None, fleet: Fleet
) -> None:
    key = make_token(make_user("ida-multihost", "operator"), "operator").key
    a, b = fleet.web
    headers = {"Idempotency-Key": "multihost-route-1"}
    body = {"slug": "multihost-idempotent", "description": "created once"}
    with a.client(key, **headers) as on_a, b.client(key, **headers) as on_b:
        first = on_a.post("/api/v1/routes/", json=body)
        again = on_b.post("/api/v1/routes/", json=body)
        other = on_b.post("/api/v1/routes/", json={**body, "description": "another body"})
    assert first.status_code == 201, first.text[:300]
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers["Idempotent-Replayed"] == "true"
    assert other.status_code == 422
    assert Route.objects.filter(slug="multihost-idempotent").count() == 1


def _retitle(groups: Any, title: str) -> bool:
    """Set the first figure's title in the cached groups (a dict with `title` and `json`)."""
    if isinstance(groups, dict):
        if "title" in groups and "json" in groups:
            groups["title"] = title
            return True
        return any(_retitle(v, title) for v in groups.values())
    if isinstance(groups, list):
        return any(_retitle(v, title) for v in groups)
    return False


def test_figures_built_by_one_port_are_served_by_the_other(
    transactional_db: None, fleet: Fleet, proposer: Any, approver: Any
) -> None:
    release = benchmarked_release(proposer=proposer, approver=approver)
    make_user("vic-multihost", "viewer")
    a, b = fleet.web
    cookie = {"Cookie": f"sessionid={_sign_in(a, 'vic-multihost', PASSWORD).cookies['sessionid']}"}
    with a.client(**cookie) as on_a:
        assert on_a.get(f"/releases/{release.pk}/").status_code == 200
    # The entry A stored, read as every process reads it (settings' `figures` with CACHE_URL).
    shared = RedisCache(fleet.cache_url, {})
    release = Release.objects.get(pk=release.pk)
    key = figures_key(release, progress_context(release)["runs"])
    groups = shared.get(key)
    assert groups, f"A stored no figures under {key}"
    # Marked, so that B's page shows whether it served A's entry or built its own.
    marker = "Served from the entry A built"
    assert _retitle(groups, marker)
    shared.set(key, groups, timeout=300)
    with b.client(**cookie) as on_b:
        page = on_b.get(f"/releases/{release.pk}/")
    assert page.status_code == 200 and marker in page.text


def test_the_audit_chain_written_from_both_ports_at_once_verifies(
    transactional_db: None, fleet: Fleet
) -> None:
    key = make_token(make_user("ava-multihost", "operator"), "operator").key
    auditor = make_token(make_user("abe-multihost", "admin"), "admin").key  # `full` walks are an admin's
    a, b = fleet.web
    before = AuditEvent.objects.count()
    slugs = [f"multihost-chain-{n}" for n in range(8)]

    def create(n: int) -> int:
        with (a if n % 2 else b).client(key) as client:
            return client.post("/api/v1/routes/", json={"slug": slugs[n]}).status_code

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(create, range(len(slugs)))) == [201] * len(slugs)
    ids = list(AuditEvent.objects.order_by("id").values_list("id", flat=True))
    assert ids == list(range(1, len(ids) + 1))  # one chain, no fork, no gap
    assert AuditEvent.objects.filter(action="route.created", object_id__in=slugs).count() == len(slugs)
    assert len(ids) >= before + len(slugs)
    for web in fleet.web:
        with web.client(auditor) as client:
            verified = client.get("/api/v1/audit/verify", params={"full": "true"}).json()
        assert verified["valid"] is True and verified["events"] == len(ids), verified
    assert audit_status(full=True)["valid"]
