"""Bootstrap tokens, registration, heartbeats, offline, revocation: over the API."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from benchmarks_app.models import BootstrapToken, Worker, WorkerCredential
from benchmarks_app.services.workers import bootstrap_token_create, hardware_class_of
from benchmarks_app.tokens import token_hash
from tests.support.workers import HARDWARE

pytestmark = pytest.mark.django_db

H100 = {
    **HARDWARE,
    "gpus": [{"name": "NVIDIA H100 80GB HBM3", "memory_total_gib": 79.6, "driver": "550.54", "cuda": "12.4"}],
}


def _register(token: str, **extra: Any) -> Any:
    body = {
        "name": "gpu-box-1",
        "host": "gpu-box-1.lan",
        "agent_version": "0.1.0",
        "spec_versions": [1],
        "hardware": H100,
        "engines": {"vllm": "0.11.0", "torch": "2.8.0"},
        "capabilities": ["openai", "managed", "cuda"],
        **extra,
    }
    return APIClient().post(
        "/api/v1/workers/register", body, format="json", HTTP_AUTHORIZATION=f"Token {token}"
    )


def test_createbootstraptoken_prints_the_token_alone_and_stores_its_hash() -> None:
    out = StringIO()
    call_command("createbootstraptoken", "--expires", "2h", "--note", "rack 4", stdout=out)
    token = out.getvalue().strip()
    assert token.startswith("spb_") and "\n" not in token
    row = BootstrapToken.objects.get()
    assert row.token_hash == token_hash(token) and token not in str(row.__dict__)
    assert timedelta(hours=1, minutes=59) < row.expires_at - timezone.now() <= timedelta(hours=2)


def test_createbootstraptoken_refuses_a_bad_duration() -> None:
    with pytest.raises(CommandError, match="positive number and a unit"):
        call_command("createbootstraptoken", "--expires", "soon")


def test_it_registers_a_worker_and_returns_its_own_token_and_queues() -> None:
    _, bootstrap = bootstrap_token_create()
    response = _register(bootstrap, queues=["team-a"])
    assert response.status_code == 201, response.content
    body = response.json()
    worker = Worker.objects.get()
    assert body["token"].startswith("spw_")
    assert WorkerCredential.objects.get().token_hash == token_hash(body["token"])
    assert body["queues"] == [f"worker.{worker.pk}", "pool.gpu-h100", "pool.gpu", "pool.any", "team-a"]
    cpu_body = _register(
        bootstrap, name="cpu-1", hardware=HARDWARE, capabilities=["openai", "transformers"]
    ).json()
    assert cpu_body["queues"] == [f"worker.{worker.pk + 1}", "pool.cpu", "engine.transformers", "pool.any"]
    assert body["worker"]["hardware"]["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert body["worker"]["status"] == "online"
    assert body["broker_url"] and body["heartbeat_interval_s"] > 0
    event = AuditEvent.objects.filter(action="worker.register").first()
    assert event.actor_label == "worker:gpu-box-1" and event.object_id == str(worker.pk)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "gpu-h100"),
        ("NVIDIA A100-SXM4-80GB", "gpu-a100"),
        ("NVIDIA GeForce RTX 4090", "gpu-rtx-4090"),
        ("NVIDIA H200", "gpu-h200"),
    ],
)
def test_hardware_class_comes_from_the_gpu_model(name: str, expected: str) -> None:
    assert hardware_class_of({"gpus": [{"name": name}]}) == expected
    assert hardware_class_of({"gpus": []}) == "cpu"


def test_registration_refuses_unknown_expired_and_worker_tokens() -> None:
    assert _register("spb_nope").status_code == 401
    _, expired = bootstrap_token_create(expires_at=timezone.now() - timedelta(seconds=1))
    assert _register(expired).status_code == 401
    _, bootstrap = bootstrap_token_create()
    worker_token = _register(bootstrap).json()["token"]
    assert _register(worker_token).status_code == 401
    assert Worker.objects.count() == 1


def test_registration_with_bad_hardware_is_a_400_with_paths() -> None:
    _, bootstrap = bootstrap_token_create()
    response = _register(bootstrap, hardware={**H100, "cpu_cores": -1})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert any("cpu_cores" in e["path"] for e in response.json()["errors"])
    assert not Worker.objects.exists()


def test_heartbeats_keep_a_worker_online_and_silence_makes_it_offline() -> None:
    _, bootstrap = bootstrap_token_create()
    token = _register(bootstrap).json()["token"]
    client = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    Worker.objects.update(last_heartbeat_at=timezone.now() - timedelta(seconds=600))
    assert Worker.objects.get().status == "offline"
    response = client.post("/api/v1/workers/heartbeat", {"current_run": None}, format="json")
    assert response.status_code == 200, response.content
    assert Worker.objects.get().status == "online"
    with override_settings(WORKER_OFFLINE_AFTER_S=1):
        Worker.objects.update(last_heartbeat_at=timezone.now() - timedelta(seconds=2))
        assert Worker.objects.get().status == "offline"
        assert list(Worker.objects.online()) == []


def test_heartbeat_needs_a_worker_token(operator: Any) -> None:
    client = APIClient()
    client.force_login(operator)
    assert client.post("/api/v1/workers/heartbeat", {}, format="json").status_code == 401


def test_workers_list_shows_hardware_and_status(viewer: Any) -> None:
    _, bootstrap = bootstrap_token_create()
    _register(bootstrap)
    client = APIClient()
    client.force_login(viewer)
    body = client.get("/api/v1/workers/").json()
    assert body[0]["hardware_class"] == "gpu-h100" and body[0]["status"] == "online"
    assert body[0]["current_run"] is None and "token" not in body[0]


def test_an_admin_revokes_a_worker_and_its_token_stops_working(admin: Any, operator: Any) -> None:
    _, bootstrap = bootstrap_token_create()
    token = _register(bootstrap).json()["token"]
    worker = Worker.objects.get()
    as_operator = APIClient()
    as_operator.force_login(operator)
    assert as_operator.post(f"/api/v1/workers/{worker.pk}/revoke", {"reason": "x"}).status_code == 403
    as_admin = APIClient()
    as_admin.force_login(admin)
    response = as_admin.post(
        f"/api/v1/workers/{worker.pk}/revoke", {"reason": "decommissioned"}, format="json"
    )
    assert response.status_code == 200 and response.json()["status"] == "revoked"
    beat = APIClient(HTTP_AUTHORIZATION=f"Token {token}").post("/api/v1/workers/heartbeat", {}, format="json")
    assert beat.status_code == 401
    assert AuditEvent.objects.get(action="worker.revoke").reason == "decommissioned"
    again = as_admin.post(f"/api/v1/workers/{worker.pk}/revoke", {}, format="json")
    assert again.status_code == 409


def test_workers_page_lists_workers_with_time_elements(viewer: Any) -> None:
    _, bootstrap = bootstrap_token_create()
    _register(bootstrap)
    client = APIClient()
    client.force_login(viewer)
    html = client.get("/workers/").content.decode()
    assert "gpu-box-1" in html and "pool.gpu-h100" in html and "NVIDIA H100 80GB HBM3" in html
    assert '<time datetime="' in html and "badge-online" in html


def test_a_revoked_bootstrap_token_enrols_no_more_workers() -> None:
    out = StringIO()
    call_command("createbootstraptoken", stdout=out)
    token = out.getvalue().strip()
    assert _register(token).status_code == 201
    call_command("revokebootstraptoken", token[:10], stdout=StringIO())
    assert _register(token).status_code == 401
    assert AuditEvent.objects.filter(action="worker.bootstrap_token.revoke").count() == 1
    assert Worker.objects.get().status == "online"  # the worker it enrolled keeps its own token
    with pytest.raises(CommandError, match="give a longer hint"):
        call_command("revokebootstraptoken", "spb_", stdout=StringIO())


def test_an_admin_revokes_a_worker_from_the_workers_page(admin: Any, operator: Any) -> None:
    _, bootstrap = bootstrap_token_create()
    _register(bootstrap)
    worker = Worker.objects.get()
    as_operator = APIClient()
    as_operator.force_login(operator)
    assert "Revoke" not in as_operator.get("/workers/").content.decode()
    as_operator.post(f"/workers/{worker.pk}/revoke", {"reason": "x"})
    assert Worker.objects.get().revoked_at is None
    as_admin = APIClient()
    as_admin.force_login(admin)
    page = as_admin.get("/workers/", HTTP_HX_REQUEST="true").content.decode()
    assert page.startswith('<div id="workers-table"') and "Revoke" in page
    response = as_admin.post(f"/workers/{worker.pk}/revoke", {"reason": "moved racks"})
    assert response.status_code == 302
    assert Worker.objects.get().status == "revoked"
    assert AuditEvent.objects.get(action="worker.revoke").reason == "moved racks"
