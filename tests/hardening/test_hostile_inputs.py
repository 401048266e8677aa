"""No 5xx from any input: each case the probe found, answered with a 4xx problem naming
the field (or a clean result), and nothing written."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from django.test import Client, RequestFactory
from django.urls import get_resolver
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from audit_app.services import audit_record
from benchmarks_app.models import RunResult, Worker
from benchmarks_app.services.workers import bootstrap_token_create
from contracts_app.models import ContractVersion, Route
from tests.hardening.outcomes import outcome_for
from tests.support.factories import example, variant
from tests.support.workers import HARDWARE

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
DEEP = "[" * 10_000 + "]" * 10_000


def _paths(response: Any) -> list[str]:
    assert response["Content-Type"] == PROBLEM, response.content[:300]
    return [e["path"] for e in response.json().get("errors", [])]


def _post(client: Any, path: str, body: str | bytes, method: str = "post", **extra: Any) -> Any:
    return getattr(client, method)(path, data=body, content_type="application/json", **extra)


def test_json_nested_10000_deep_is_a_400_on_every_json_endpoint(admin_client: APIClient) -> None:
    for path in ("/api/v1/routes/", "/api/v1/releases/", "/api/v1/runs/", "/api/v1/contracts/validate",
                 "/api/v1/tokens/", "/api/v1/contracts/import"):  # fmt: skip
        # 10,000 deep (a RecursionError in Python's parser), and 70 deep inside an object.
        for body in (DEEP, '{"route": ' + "[" * 70 + "]" * 70 + "}"):
            response = _post(admin_client, path, body)
            assert response.status_code == 400, (path, response.status_code, response.content[:200])
            assert response["Content-Type"] == PROBLEM
            assert "deep" in json.dumps(response.json())


def test_yaml_nested_deep_or_with_a_nul_is_a_400(admin_client: APIClient) -> None:
    doc = example("contract-summaries-ngram")
    deep = yaml.safe_dump(variant(doc, notes=None)) + "\nx: " + "[" * 200 + "]" * 200 + "\n"
    nul = yaml.safe_dump(doc).replace("description:", 'description: "a\\0b"\nx_description:', 1)
    for body in (deep, nul, "a: " + "[" * 5000 + "]" * 5000):
        response = admin_client.post(
            "/api/v1/contracts/validate", data=body, content_type="application/yaml"
        )  # fmt: skip
        assert response.status_code == 400, response.content[:300]
        assert response["Content-Type"] == PROBLEM


def test_a_limit_beyond_bigint_is_clamped_and_an_offset_beyond_is_an_empty_page(
    admin_client: APIClient, settings: Any
) -> None:
    huge = str(2**70)
    for path in ("/api/v1/routes/", "/api/v1/releases/", "/api/v1/runs/", "/api/v1/audit/",
                 "/api/v1/workers/", "/api/v1/tokens/"):  # fmt: skip
        response = admin_client.get(path, {"limit": huge, "offset": huge})
        assert response.status_code == 200, (path, response.content[:200])
        response = admin_client.get(path, {"limit": huge})
        assert response.status_code == 200, (path, response.content[:200])
        page = response.json()
        if isinstance(page, dict) and page.get("next"):
            assert f"limit={settings.API_MAX_PAGE_SIZE}" in page["next"]


def test_a_nul_in_a_path_segment_or_a_filter_is_a_400_not_a_500(admin_client: APIClient) -> None:
    paths = (
        "/api/v1/routes/a%00b/",
        "/api/v1/routes/a%00b/versions/",
        "/api/v1/routes/x/diff?from=1&to=%00",
        "/api/v1/runs/?route=%00",
        "/api/v1/releases/?state=%00",
        "/api/v1/audit/?actor=%00",
    )
    for path in paths:
        response = admin_client.get(path)
        assert response.status_code in (400, 404), (path, response.status_code)
        assert response["Content-Type"] == PROBLEM
    page = Client(raise_request_exception=False)
    assert page.get("/routes/a%00b/").status_code in (400, 404)


def test_nul_lone_surrogates_and_1e400_in_json_fields_are_400s_naming_the_field(
    admin_client: APIClient,
) -> None:
    doc = example("contract-summaries-ngram")
    for description, why in (("a\x00b", "NUL"), ("a\ud800b", "surrogate")):
        body = json.dumps({**doc, "description": description})  # ensure_ascii: \u0000, \ud800
        response = _post(admin_client, "/api/v1/contracts/validate", body)
        assert response.status_code == 400 and _paths(response) == ["description"], why
        response = _post(admin_client, "/api/v1/routes/contract-summaries/versions/", body)
        assert response.status_code == 400 and _paths(response) == ["description"], why
    body = json.dumps(doc).replace('"requests_per_level": 64', '"requests_per_level": 1e400', 1)
    response = _post(admin_client, "/api/v1/contracts/validate", body)
    assert response.status_code == 400
    assert _paths(response) == ["measurement.workloads.summarization.requests_per_level"]
    assert not ContractVersion.objects.exists()


def test_worker_hardware_with_nul_or_1e400_or_huge_numbers_is_refused() -> None:
    _, bootstrap = bootstrap_token_create()
    client = APIClient(HTTP_AUTHORIZATION=f"Token {bootstrap}")
    base = {"name": "w", "host": "h", "agent_version": "1", "spec_versions": [1], "hardware": HARDWARE}
    cases = [
        (json.dumps({**base, "hardware": {**HARDWARE, "cpu_model": "x\x00"}}), "hardware.cpu_model"),
        (json.dumps({**base, "hardware": HARDWARE}).replace('"memory_gib": 128.0', '"memory_gib": 1e400'),
         "hardware.memory_gib"),
        (json.dumps({**base, "hardware": {**HARDWARE, "cpu_cores": 2**40}}), "hardware.cpu_cores"),
        (json.dumps({**base, "hardware": {**HARDWARE, "cpu_cores": 2**70}}), "hardware.cpu_cores"),
        (json.dumps({**base, "spec_versions": [2**40]}), "spec_versions.0"),
    ]  # fmt: skip
    for body, path in cases:
        response = _post(client, "/api/v1/workers/register", body)
        assert response.status_code == 400, (path, response.content[:300])
        assert path in _paths(response), (path, response.json())
    assert not Worker.objects.exists()


def test_result_texts_and_numbers_that_cannot_be_stored_are_refused(claimed_run: Any) -> None:
    run, worker, spec = claimed_run()
    outcome = outcome_for(spec, tokens=8)
    cases = {
        "baseline.levels[0].requests[0].output_text": ("output_text", "x\x00y"),
        "baseline.levels[0].requests[0].prompt_id": ("prompt_id", "\udfff"),
    }
    for path, (key, value) in cases.items():
        bad = json.loads(json.dumps(outcome))
        bad["baseline"]["levels"][0]["requests"][0][key] = value
        response = _post(worker, f"/api/v1/runs/{run.pk}/result", json.dumps(bad), method="put")
        assert response.status_code == 400 and _paths(response) == [path], response.content[:300]
    body = json.dumps(outcome).replace('"duration_s": 30.0', '"duration_s": 1e400', 1)
    response = _post(worker, f"/api/v1/runs/{run.pk}/result", body, method="put")
    assert response.status_code == 400 and _paths(response) == ["baseline.levels[0].duration_s"]
    assert not RunResult.objects.exists()


def test_progress_totals_beyond_the_column_are_400s(claimed_run: Any) -> None:
    run, worker, _ = claimed_run()
    for body, path in (({"attempt": 1, "done": 1, "total": 2**31}, "total"),
                       ({"attempt": 1, "done": 2**31, "total": 2**31}, "done"),
                       ({"attempt": 2**31, "done": 1, "total": 2}, "attempt")):  # fmt: skip
        response = worker.post(f"/api/v1/runs/{run.pk}/progress", body, format="json")
        assert response.status_code == 400 and path in _paths(response), response.content[:300]
    run.refresh_from_db()
    assert run.progress_done == 0


def test_contract_numbers_beyond_what_a_run_can_hold_are_refused_at_validation(
    admin_client: APIClient,
) -> None:
    doc = example("contract-summaries-ngram")
    workload = "measurement.workloads.extraction"
    cases = {
        f"{workload}.requests_per_level": variant(doc, **{f"{workload}.requests_per_level": 3_000_000_000}),
        f"{workload}.concurrency": variant(doc, **{f"{workload}.concurrency": list(range(1, 11_001))}),
        f"{workload}.max_tokens": variant(doc, **{f"{workload}.max_tokens": 2**40}),
        "compatibility.max_concurrency": variant(doc, **{"compatibility.max_concurrency": 2**62}),
    }
    for path, document in cases.items():
        response = admin_client.post("/api/v1/contracts/validate", document, format="json")
        assert response.status_code == 400, (path, response.content[:300])
        assert any(p == path for p in _paths(response)), (path, response.json())
    # The same bounds on a standalone run's overrides.
    response = admin_client.post(
        "/api/v1/runs/",
        {"route": "contract-summaries", "candidate_version": 1, "concurrency": list(range(1, 11_001)),
         "requests_per_level": 3_000_000_000, "seed": -1},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert {"concurrency", "requests_per_level", "seed"} <= set(_paths(response))


def test_a_64_character_route_slug_fits_every_id_derived_from_it(admin_client: APIClient) -> None:
    slug = "r" * 62 + "-x"
    document = variant(example("contract-summaries-ngram"), route=slug)
    response = admin_client.post(f"/api/v1/routes/{slug}/versions/", document, format="json")
    assert response.status_code == 201, response.content[:300]
    assert AuditEvent.objects.filter(object_id=f"{slug}:v1").exists()
    # Version 100 and beyond: the audit record's object id holds them too.
    route = Route.objects.get(slug=slug)
    for number in (10, 100, 2**31 - 1):
        audit_record(actor=None, action="contract.version.test", obj_type="contract_version",
                     obj_id=f"{slug}:v{number}", route=route)  # fmt: skip
    assert AuditEvent.objects.filter(object_id=f"{slug}:v{2**31 - 1}").exists()


def test_a_nul_in_a_page_forms_reason_is_a_400(approver: Any) -> None:
    page = Client(raise_request_exception=False)
    page.force_login(approver)
    response = page.post("/releases/1/approve", {"reason": "ok\x00", "lock_version": "1"})
    assert response.status_code == 400


def test_api_errors_are_problem_json_for_404_405_413_415_and_500(admin_client: APIClient) -> None:
    response = admin_client.get("/api/v1/no/such/thing")
    assert response.status_code == 404 and response["Content-Type"] == PROBLEM
    response = admin_client.delete("/api/v1/routes/")
    assert response.status_code == 405 and response["Content-Type"] == PROBLEM
    response = _post(admin_client, "/api/v1/routes/", b"x" * (2 << 20))
    assert response.status_code == 413 and response["Content-Type"] == PROBLEM
    response = admin_client.post("/api/v1/routes/", data="slug=x", content_type="text/plain")
    assert response.status_code == 415 and response["Content-Type"] == PROBLEM
    handler500 = get_resolver().resolve_error_handler(500)
    response = handler500(RequestFactory().get("/api/v1/routes/"))
    assert response.status_code == 500 and response["Content-Type"] == PROBLEM
    assert json.loads(response.content)["status"] == 500
    # Pages keep their HTML error pages.
    assert "text/html" in handler500(RequestFactory().get("/routes/"))["Content-Type"]
    assert "text/html" in Client().get("/no/such/page/")["Content-Type"]
