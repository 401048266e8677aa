"""A route whose active contract runs on an archived engine (TGI, issue 23) says so on its
page, with the contract translated to vLLM and SGLang; other routes show no notice. The
same words are a validation warning."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from contracts_app.document import validate_document, validation_warnings
from contracts_app.models import Route
from tests.support.factories import example, make_version

pytestmark = pytest.mark.django_db


def _active(slug: str, document: dict[str, Any]) -> None:
    version = make_version(slug, document)
    Route.objects.filter(pk=version.route_id).update(active_version=version)


def test_a_tgi_route_shows_the_archived_engine_notice_with_its_translations(signed_in: Client) -> None:
    _active("doc-review", example("doc-review-ngram-tgi"))
    body = signed_in.get("/routes/doc-review/").content.decode()
    notice = body[body.index('id="archived-engine"') : body.index('id="checklist"')]
    assert "TGI is in maintenance mode from 2025-12-11 and archived (read-only) on 2026-03-21" in notice
    assert 'data-translation="vllm"' in notice and 'data-translation="sglang"' in notice
    assert "vllm serve" in notice and "sglang.launch_server" in notice


def test_other_routes_show_no_notice(signed_in: Client) -> None:
    _active("contract-summaries", example("contract-summaries-ngram"))
    body = signed_in.get("/routes/contract-summaries/").content.decode()
    assert 'id="archived-engine"' not in body


def test_the_notice_is_a_validation_warning_on_the_engine() -> None:
    warnings = validation_warnings(validate_document(example("doc-review-ngram-tgi")))
    found = [w.message for w in warnings if w.path == "target.engine"]
    assert found and "archived" in found[0] and "specpact render --engine vllm|sglang" in found[0]
    vllm = validation_warnings(validate_document(example("contract-summaries-ngram")))
    assert not [w for w in vllm if w.path == "target.engine"]
