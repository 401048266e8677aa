"""Webhooks end to end on loopback: subscription, outbox rows in the event's transaction,
the relay's signed POSTs checked by the documented snippet, retries, dead, redelivery, and
the address policy. Loopback is enabled explicitly (WEBHOOK_ALLOW_LOOPBACK) where a test
needs its receiver."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from audit_app.checkpoints import verify_audit
from audit_app.models import AuditEvent
from audit_app.services import audit_record
from contracts_app.models import Route
from releases_app.services import release_create
from tests.support.factories import make_token
from tests.support.releases import cosmetic_change
from webhooks_app.models import Delivery, DeliveryState
from webhooks_app.relay import relay_once

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def _snippet() -> Any:
    """The docs' verification snippet, exactly as published."""
    text = DOC.read_text()
    block = re.search(r"<!-- verify-snippet -->\s*```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 10
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102  # our own documentation
    return namespace["verify"]


@dataclass
class Receiver:
    """A real HTTP server on loopback; answers `statuses` in turn (then 200)."""

    statuses: list[int] = field(default_factory=list)
    location: str = ""
    received: list[tuple[dict[str, str], bytes, Any]] = field(default_factory=list)
    secret: str = ""
    url: str = ""


@contextmanager
def _serving() -> Iterator[Receiver]:
    state = Receiver()
    verify = _snippet()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            # The documented snippet, run by the receiver on what it was sent.
            state.received.append((dict(self.headers), body, verify(state.secret, self.headers, body)))
            status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            if state.location:
                self.send_header("Location", state.location)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_port}/hook"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with _serving() as state:
        yield state


@pytest.fixture
def loopback_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True


def _admin_client(admin: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(admin, 'admin').key}")
    return client


def _subscribe(admin: Any, url: str, events: list[str], route: str = "") -> Any:
    return _admin_client(admin).post(
        "/api/v1/webhooks/", {"url": url, "events": events, "route": route}, format="json"
    )


def _subscribed(admin: Any, receiver: Receiver, events: list[str], route: str = "") -> dict[str, Any]:
    answer = _subscribe(admin, receiver.url, events, route)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    receiver.secret = body["secret"]
    return body


def _propose(route: Route, proposer: Any) -> Any:
    return release_create(route=route, candidate_version=cosmetic_change(route).number, actor=proposer)


def _due_now() -> None:
    """As if the backoff's wait had passed."""
    Delivery.objects.filter(state=DeliveryState.RETRYING).update(next_attempt_at=timezone.now())


def test_a_release_event_is_delivered_signed_and_the_documented_snippet_verifies_it(
    loopback_allowed: None, receiver: Receiver, admin: Any, route_v1: Route, proposer: Any
) -> None:
    hook = _subscribed(admin, receiver, ["release.*"], route=route_v1.slug)
    assert hook["secret"].startswith("whsec_")
    assert "secret" not in _admin_client(admin).get(f"/api/v1/webhooks/{hook['id']}/").json()  # shown once
    release = _propose(route_v1, proposer)
    events = set(Delivery.objects.values_list("event", flat=True))
    assert events == {"release.proposed", "release.benchmark_skipped"}  # written with the events
    assert relay_once() == 2
    assert {d.state for d in Delivery.objects.all()} == {DeliveryState.DELIVERED}
    assert len(receiver.received) == 2
    for headers, _body, verified in receiver.received:
        assert verified, headers
        assert headers["X-SpecPact-Signature"].startswith("sha256=")
        assert headers["Content-Type"] == "application/json"
    headers, body, _ = receiver.received[0]
    verify = _snippet()
    assert not verify("whsec_wrong", headers, body)
    assert not verify(receiver.secret, headers, body.replace(b"release", b"re1ease"))
    stale = {**headers, "X-SpecPact-Timestamp": str(int(headers["X-SpecPact-Timestamp"]) - 3600)}
    assert not verify(receiver.secret, stale, body)
    payload = json.loads(body)
    assert payload["route"] == route_v1.slug
    assert payload["data"]["object"] == {"type": "release", "id": str(release.pk)}


def test_an_event_whose_transaction_rolls_back_leaves_no_delivery(
    loopback_allowed: None, receiver: Receiver, admin: Any, route_v1: Route, proposer: Any
) -> None:
    _subscribed(admin, receiver, ["*"])
    with pytest.raises(RuntimeError), transaction.atomic():
        _propose(route_v1, proposer)
        assert Delivery.objects.count() == 2
        raise RuntimeError("the caller's transaction fails after the event")
    assert not Delivery.objects.exists()


def test_other_routes_and_other_events_are_not_delivered(
    loopback_allowed: None, receiver: Receiver, admin: Any, route_v1: Route, proposer: Any
) -> None:
    _subscribed(admin, receiver, ["release.approved"], route="another-route")
    _subscribed(admin, receiver, ["release.rolled_back"])
    _propose(route_v1, proposer)
    assert not Delivery.objects.exists()


def test_a_receiver_that_fails_twice_then_succeeds_gets_it_on_the_third_try(
    loopback_allowed: None, receiver: Receiver, admin: Any, settings: Any
) -> None:
    settings.WEBHOOK_RETRY_BASE_S = 10
    receiver.statuses = [500, 503]
    _subscribed(admin, receiver, ["release.approved"])
    audit_record(actor=None, action="release.approved", obj_type="release", obj_id=1, route="r")
    started = timezone.now()
    relay_once()
    first = Delivery.objects.get()
    assert (first.state, first.attempts, first.last_status) == (DeliveryState.RETRYING, 1, 500)
    assert started <= first.next_attempt_at <= timezone.now() + timedelta(seconds=10)
    assert relay_once() == 0  # not due yet
    _due_now()
    relay_once()
    second = Delivery.objects.get()
    assert (second.state, second.attempts, second.last_status) == (DeliveryState.RETRYING, 2, 503)
    assert second.next_attempt_at <= timezone.now() + timedelta(seconds=20)
    _due_now()
    relay_once()
    third = Delivery.objects.get()
    assert (third.state, third.attempts, third.last_status) == (DeliveryState.DELIVERED, 3, 200)
    assert [verified for _, _, verified in receiver.received] == [True, True, True]
    # Every try sent the same delivery: one id, one body.
    assert len({h["X-SpecPact-Delivery"] for h, _, _ in receiver.received}) == 1
    assert len({body for _, body, _ in receiver.received}) == 1


def test_a_delivery_is_dead_after_the_last_try_audited_and_redelivery_starts_it_over(
    loopback_allowed: None, receiver: Receiver, admin: Any, settings: Any
) -> None:
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.statuses = [500, 500, 500]
    hook = _subscribed(admin, receiver, ["release.*"])
    audit_record(actor=None, action="release.rejected", obj_type="release", obj_id=1, route="r")
    for _ in range(3):
        relay_once()
        _due_now()
    dead = Delivery.objects.get()
    assert (dead.state, dead.attempts) == (DeliveryState.DEAD, 3)
    assert AuditEvent.objects.filter(action="webhook.delivery_dead", object_id=str(dead.pk)).exists()
    assert relay_once() == 0
    client = _admin_client(admin)
    listed = client.get(f"/api/v1/webhooks/{hook['id']}/deliveries/").json()["results"]
    assert [(d["id"], d["state"]) for d in listed] == [(dead.pk, "dead")]
    again = client.post(f"/api/v1/webhooks/{hook['id']}/deliveries/{dead.pk}/redeliver")
    assert again.status_code == 200, again.content
    assert again.json()["state"] == "pending"
    relay_once()
    assert Delivery.objects.get().state == DeliveryState.DELIVERED
    assert AuditEvent.objects.filter(action="webhook.redelivered").count() == 1


def test_only_admins_manage_webhooks(operator: Any, admin: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(operator, 'operator').key}")
    assert client.get("/api/v1/webhooks/").status_code == 403
    body = {"url": "https://example.com/", "events": ["*"]}
    assert client.post("/api/v1/webhooks/", body, format="json").status_code == 403


@pytest.mark.parametrize(
    ("url", "allow_loopback"),
    [
        ("http://127.0.0.1:9/hook", False),  # loopback, not allowed
        ("http://localhost:9/hook", False),  # a name that resolves to loopback
        ("http://169.254.169.254/latest/meta-data/", True),  # metadata: never, whatever is allowed
        ("http://10.1.2.3/hook", True),  # private, not allowed
        ("file:///etc/passwd", True),
        ("ftp://example.com/", True),
        ("https://no-such-host.invalid/hook", True),  # does not resolve: a 400, not a 500
        # IPv4 hidden in IPv6 is judged as the IPv4 address: loopback, private, metadata.
        ("http://[::ffff:127.0.0.1]:9/hook", False),
        ("http://[::7f00:1]:9/hook", False),  # IPv4-compatible
        ("http://[64:ff9b::a01:203]/hook", True),  # NAT64 of 10.1.2.3
        ("http://[64:ff9b:1::7f00:1]/hook", False),  # local-use NAT64
        ("http://[2002:a9fe:a9fe::1]/hook", True),  # 6to4 of 169.254.169.254
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook", False),  # Teredo, client 127.0.0.1
        ("http://100.64.0.1/hook", True),  # CGNAT
    ],
)
def test_subscribing_a_refused_address_is_a_400_naming_url(
    admin: Any, settings: Any, url: str, allow_loopback: bool
) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = allow_loopback
    answer = _subscribe(admin, url, ["*"])
    assert answer.status_code == 400, answer.content
    assert [e["path"] for e in answer.json()["errors"]] == ["url"]


def test_a_bad_event_name_is_a_400_naming_it(admin: Any) -> None:
    answer = _subscribe(admin, "https://example.com/", ["release.*", "token.issued"])
    assert answer.status_code == 400
    assert [e["path"] for e in answer.json()["errors"]] == ["events[1]"]


def test_the_address_is_checked_again_at_delivery_time(receiver: Receiver, admin: Any, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    _subscribed(admin, receiver, ["release.*"])
    settings.WEBHOOK_ALLOW_LOOPBACK = False  # the admin withdrew it after subscribing
    audit_record(actor=None, action="release.approved", obj_type="release", obj_id=1, route="r")
    relay_once()
    delivery = Delivery.objects.get()
    assert delivery.state == DeliveryState.RETRYING
    assert "refused" in delivery.last_error and "127.0.0.1" in delivery.last_error
    assert receiver.received == []


def test_a_redirect_to_loopback_is_not_followed(loopback_allowed: None, admin: Any) -> None:
    with _serving() as redirector, _serving() as target:
        redirector.statuses = [302]
        redirector.location = target.url
        _subscribed(admin, redirector, ["release.*"])
        audit_record(actor=None, action="release.approved", obj_type="release", obj_id=1, route="r")
        relay_once()
        delivery = Delivery.objects.get()
        assert delivery.state == DeliveryState.RETRYING
        assert "not followed" in delivery.last_error
        assert target.received == []


def test_a_broken_audit_chain_is_delivered_once(
    loopback_allowed: None, receiver: Receiver, admin: Any
) -> None:
    _subscribed(admin, receiver, ["audit.chain_failed"])
    events = [audit_record(actor=None, action="test.event", obj_type="thing", obj_id=i) for i in range(3)]
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute("UPDATE audit_app_auditevent SET reason = 'forged' WHERE id = %s", [events[1].id])
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
    assert not verify_audit()["valid"]
    assert not verify_audit()["valid"]  # seen twice: still one delivery
    delivery = Delivery.objects.get()
    assert delivery.event == "audit.chain_failed"
    relay_once()
    payload = json.loads(receiver.received[0][1])
    assert payload["data"]["verify"]["first_broken"] == events[1].id
    assert receiver.received[0][2]


def test_the_deliveries_page_is_for_admins_and_redelivers(
    loopback_allowed: None, receiver: Receiver, admin: Any, operator: Any, settings: Any
) -> None:
    from django.test import Client

    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.statuses = [500]
    _subscribed(admin, receiver, ["release.*"])
    audit_record(actor=None, action="release.rejected", obj_type="release", obj_id=1, route="r")
    relay_once()
    delivery = Delivery.objects.get()
    assert delivery.state == DeliveryState.DEAD
    outsider = Client()
    outsider.force_login(operator)
    assert outsider.get("/webhooks/").status_code == 403
    page = Client()
    page.force_login(admin)
    html = page.get("/webhooks/")
    assert html.status_code == 200
    assert b"release.rejected" in html.content and b"dead" in html.content
    assert page.post(f"/webhooks/deliveries/{delivery.pk}/redeliver").status_code == 302
    assert Delivery.objects.get().state == DeliveryState.PENDING
