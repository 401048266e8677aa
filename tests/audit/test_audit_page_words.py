"""The audit page reads in one zone, UTC, as its filters take times, and says so; its
checkpoint in words; the objects with a page (a workload, an endpoint, a webhook) linked."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import Client

from audit_app.checkpoints import checkpoint_create
from audit_app.links import object_url
from audit_app.services import audit_record
from tests.audit.conftest import record
from tests.workloads.conftest import client_for, upload
from workloads_app.models import WorkloadVersion

pytestmark = pytest.mark.django_db


def page(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.get("/audit/").content.decode()


def test_the_checkpoint_is_said_in_words_with_its_time_in_utc(
    signing_key: Ed25519PrivateKey, approver: Any
) -> None:
    record(3)
    checkpoint, _ = checkpoint_create(now=datetime(2026, 3, 2, 9, 0, 5, tzinfo=UTC))
    assert checkpoint is not None
    body = page(approver)
    assert (
        f"Checkpoint #{checkpoint.pk}, signed at 2026-03-02 09:00:05 UTC, covers events 1\u20133; "
        "the chain still matches it."
    ) in body
    assert "+00:00" not in re.sub(r'datetime="[^"]*"|title="[^"]*"', "", body)  # no raw ISO times shown


def test_every_time_stays_in_utc_and_the_page_says_so(approver: Any) -> None:
    record(1)
    body = page(approver)
    assert "Every time on this page is in UTC" in body and "When (UTC)" in body
    times = re.findall(r"<time [^>]*>", body)
    assert times and all('data-zone="utc"' in t for t in times), times


def test_a_workload_an_endpoint_and_a_webhook_are_links(operator: Any, admin: Any) -> None:
    body = upload(client_for(operator)).json()
    stored = WorkloadVersion.objects.get(name=body["name"], digest=body["digest"])
    version = {"id": stored.pk, "name": stored.name, "digest": stored.digest}
    assert object_url("workload", str(version["id"])) == f"/workloads/by-id/{version['id']}/"
    assert object_url("endpoint", "4", "support-chat") == "/routes/support-chat/#endpoints"
    assert object_url("endpoint", "4") is None  # no route, no page
    assert object_url("webhook", "2") == "/webhooks/"
    # The workload's link leads to its page.
    client = Client()
    client.force_login(operator)
    answer = client.get(f"/workloads/by-id/{version['id']}/")
    assert (
        answer.status_code == 302
        and answer["Location"] == f"/workloads/{version['name']}@{version['digest']}/"
    )
    assert client.get("/workloads/by-id/999999/").status_code == 404
    audit_record(actor=None, action="test.event", obj_type="workload", obj_id=version["id"], reason="x")
    assert f'<a href="/workloads/by-id/{version["id"]}/">workload:{version["id"]}</a>' in page(admin)
