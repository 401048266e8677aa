"""A run's `openai` targets are held to ENDPOINT_ALLOWED_NETWORKS at `POST runs/`, the
rule live endpoints are held to (kernel.outbound.check_endpoint_url): a refused one is a
400 naming the field and the setting, and nothing is written."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from benchmarks_app.models import OutboxMessage, Run
from benchmarks_app.services.runs import run_create
from kernel.errors import DomainError
from specpact import settings as shipped
from tests.conftest import LOOPBACK_AND_PRIVATE

pytestmark = pytest.mark.django_db

NO_BROKER = "redis://127.0.0.1:9/0"
ALLOWED = "http://127.0.0.1:1"  # loopback: allowed in the suite (tests/conftest.py)
PRIVATE = "http://10.255.0.5:8000"  # allowed by the shipped networks (never connected to)


def _post(operator: Any, baseline_url: str, candidate_url: str = ALLOWED) -> Any:
    client = APIClient()
    client.force_login(operator)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        return client.post(
            "/api/v1/runs/",
            {
                "route": "contract-summaries",
                "baseline_version": 1,
                "candidate_version": 2,
                "lane": "extraction",
                "engine": "openai",
                "endpoints": {
                    "baseline": {"base_url": baseline_url, "model": "m"},
                    "candidate": {"base_url": candidate_url, "model": "m"},
                },
                "concurrency": [1],
                "requests_per_level": 1,
            },
            format="json",
        )


def _refused(response: Any, path: str, words: str) -> None:
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    (error,) = response.json()["errors"]
    assert error["path"] == path
    assert words in error["message"] and "ENDPOINT_ALLOWED_NETWORKS" in error["message"]
    assert not Run.objects.exists() and not OutboxMessage.objects.exists()
    assert not AuditEvent.objects.filter(action="run.create").exists()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:6379", "outside the allowed networks"),
        ("http://localhost:5432", "outside the allowed networks"),
        ("http://[::ffff:127.0.0.1]:6379", "carries 127.0.0.1"),
        ("http://169.254.169.254/latest/", "link-local, metadata"),
    ],
)
def test_under_the_shipped_networks_loopback_and_metadata_targets_are_refused(
    versions: Any, operator: Any, settings: Any, url: str, words: str
) -> None:
    settings.ENDPOINT_ALLOWED_NETWORKS = shipped.ENDPOINT_ALLOWED_NETWORKS
    _refused(_post(operator, PRIVATE, url), "endpoints.candidate.base_url", words)


def test_metadata_is_refused_even_where_loopback_is_allowed(
    versions: Any, operator: Any, settings: Any
) -> None:
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE + ",169.254.0.0/16"
    _refused(
        _post(operator, "http://169.254.169.254/"), "endpoints.baseline.base_url", "link-local, metadata"
    )


def test_a_name_is_judged_by_what_it_resolves_to(
    versions: Any, operator: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.ENDPOINT_ALLOWED_NETWORKS = shipped.ENDPOINT_ALLOWED_NETWORKS
    real = socket.getaddrinfo

    def fake(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "engine.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    response = _post(operator, "http://engine.example:8000/v1", PRIVATE)
    _refused(response, "endpoints.baseline.base_url", "engine.example resolves to 127.0.0.1")


def test_a_name_that_does_not_resolve_is_refused(versions: Any, operator: Any) -> None:
    _refused(
        _post(operator, "http://no-such-engine.invalid/v1"), "endpoints.baseline.base_url", "does not resolve"
    )


def test_targets_inside_the_networks_are_accepted(versions: Any, operator: Any, settings: Any) -> None:
    assert _post(operator, ALLOWED, "http://127.0.0.1:2").status_code == 201
    settings.ENDPOINT_ALLOWED_NETWORKS = shipped.ENDPOINT_ALLOWED_NETWORKS
    assert _post(operator, PRIVATE, PRIVATE).status_code == 201


def test_the_service_holds_metrics_urls_too(versions: Any, operator: Any) -> None:
    """Live endpoints' runs and releases pass `metrics_url` through the same service."""
    baseline, candidate = versions
    endpoints = {
        "baseline": {"base_url": ALLOWED, "model": "m"},
        "candidate": {"base_url": ALLOWED, "model": "m", "metrics_url": "http://169.254.169.254/metrics"},
    }
    with pytest.raises(DomainError) as caught:
        run_create(
            route=baseline.route,
            baseline=baseline,
            candidate=candidate,
            lane="extraction",
            actor=operator,
            engine_kind="openai",
            endpoints=endpoints,
        )
    assert [e.path for e in caught.value.errors] == ["endpoints.candidate.metrics_url"]
    assert not Run.objects.exists()
