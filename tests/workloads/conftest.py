"""Helpers for the workload tests: uploads through the API, contracts that name a
workload, and the routes that use one."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.support.factories import example, variant
from tests.workloads.samples import SPECPACT

NAME = "support-chat-2026-11"
URL = "/api/v1/workloads/"


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def upload(client: APIClient, raw: str | bytes = SPECPACT, *, name: str = NAME, **params: Any) -> Any:
    """POST the raw JSONL with its options in the query string."""
    query = "&".join(f"{k}={v}" for k, v in {"name": name, **params}.items())
    data = raw.encode() if isinstance(raw, str) else raw
    return client.post(f"{URL}?{query}", data=data, content_type="application/x-ndjson")


def chat_contract(dataset: str, *, route: str = "support-chat", **changes: Any) -> dict[str, Any]:
    """The support-chat example measuring its chat lane on `dataset`."""
    doc = example("support-chat-eagle3")
    lane = {"dataset": dataset, "concurrency": [1, 4, 16, 32], "requests_per_level": 6, "max_tokens": 32}
    return variant(doc, route=route, **{"measurement.workloads": {"chat": lane}}, **changes)


def upload_contract(client: APIClient, document: dict[str, Any]) -> Any:
    return client.post(f"/api/v1/routes/{document['route']}/versions/", data=document, format="json")
