"""The audit page links every object that has a page, and its route; times carry UTC."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from audit_app.links import object_url
from contracts_app.services.versions import contract_version_create
from releases_app.models import Release
from tests.support.factories import example, variant

pytestmark = pytest.mark.django_db


def test_objects_with_a_page_are_links() -> None:
    assert object_url("release", "7") == "/releases/7/"
    assert object_url("run", "12") == "/runs/12/"
    assert object_url("route", "support-chat") == "/routes/support-chat/"
    assert object_url("contract_version", "support-chat:v3") == "/routes/support-chat/versions/3/"
    assert object_url("worker", "4") == "/workers/#worker-4"
    assert object_url("token", "9") is None
    assert object_url("run", "not-a-number") is None


def test_the_page_links_versions_releases_and_routes(awaiting: Release, proposer: Any, approver: Any) -> None:
    slug = awaiting.route.slug
    upload = contract_version_create(
        slug=slug, document=variant(example(), description="Uploaded."), source_format="yaml", actor=proposer
    )
    client = Client()
    client.force_login(approver)
    body = client.get("/audit/").content.decode()
    n = upload.version.number
    assert f'<a href="/releases/{awaiting.pk}/">release:{awaiting.pk}</a>' in body
    assert f'<a href="/routes/{slug}/versions/{n}/">contract_version:{slug}:v{n}</a>' in body
    assert f'<a href="/routes/{slug}/">{slug}</a>' in body
    assert " UTC</time>" in body
