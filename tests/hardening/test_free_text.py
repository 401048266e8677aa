"""Justifications and reasons: measured as a reader sees them, capped on every path (API,
pages, services), and exported to CSV so that a spreadsheet never runs a cell."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from benchmarks_app.models import Run, RunResult, Worker
from benchmarks_app.services.lifecycle import run_result_submit
from kernel.text import JUSTIFICATION_MAX, REASON_MAX, visible_length, visible_text
from releases_app.models import Decision, Release
from tests.hardening.outcomes import outcome_for
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db

ZWSP = "\u200b"
INVISIBLE = [
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",  # zero-width, joiners, BOM, soft hyphen
    "\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f",  # bidi controls and marks
    "\u3164", "\u115f", "\u2800", "\u0007", "\u180e",  # blank letters, a control, a Mongolian separator
]  # fmt: skip
JUSTIFICATION = "The regression is in a lane we are dropping next week."


def test_visible_text_drops_what_cannot_be_seen_and_folds_whitespace() -> None:
    assert visible_text("".join(INVISIBLE) * 3) == ""
    assert visible_text(ZWSP * 30) == "" and len(ZWSP * 30) == 30
    assert visible_text("  ship\u00a0\u3000 it \n\t now ") == "ship it now"
    assert visible_text(f"a{ZWSP}b\u202ec") == "abc"
    hello = "\u0645\u0631\u062d\u0628\u0627"  # Arabic "hello", with a right-to-left mark after it
    assert visible_length(f"{hello} \u200f{hello}") == len(f"{hello} {hello}")


def _approve(client: Any, release: Release, **body: Any) -> Any:
    return client.post(f"/api/v1/releases/{release.pk}/approve", body, format="json")


def test_thirty_zero_width_spaces_are_no_justification(failed_gate: Release, approver: Any) -> None:
    client = APIClient(HTTP_AUTHORIZATION=f"Token {make_token(approver, 'approver').key}")
    for padding in (ZWSP * 30, "".join(INVISIBLE) * 2, " " * 40, "ok" + "\u200d" * 40):
        response = _approve(client, failed_gate, reason="ship it", override=True, justification=padding)
        assert response.status_code == 400, padding.encode("unicode_escape")
        assert response.json()["errors"][0]["path"] == "justification"
    assert not Decision.objects.filter(release=failed_gate, kind="approve").exists()
    response = _approve(client, failed_gate, reason="ship it", override=True, justification=JUSTIFICATION)
    assert response.status_code == 200, response.content


def test_the_page_form_measures_the_justification_the_same_way(failed_gate: Release, approver: Any) -> None:
    page = Client()
    page.force_login(approver)
    failed_gate.refresh_from_db()
    response = page.post(
        f"/releases/{failed_gate.pk}/approve",
        {
            "reason": "ship it",
            "override": "on",
            "justification": ZWSP * 30,
            "lock_version": failed_gate.lock_version,
        },
    )
    assert response.status_code in (200, 302, 400)
    failed_gate.refresh_from_db()
    assert failed_gate.state == "awaiting_review"
    assert not Decision.objects.filter(release=failed_gate, kind="approve").exists()


def test_a_reason_of_invisible_characters_is_no_reason(awaiting: Release, approver: Any) -> None:
    client = APIClient(HTTP_AUTHORIZATION=f"Token {make_token(approver, 'approver').key}")
    response = client.post(f"/api/v1/releases/{awaiting.pk}/reject", {"reason": ZWSP * 10}, format="json")
    assert response.status_code == 400 and response.json()["errors"] == [
        {"path": "reason", "message": "give a reason"}
    ]
    assert Release.objects.get(pk=awaiting.pk).state == "awaiting_review"


def test_reasons_are_capped_on_the_api_the_pages_and_the_services(
    awaiting: Release, approver: Any, admin: Any, claimed_run: Any
) -> None:
    client = APIClient(HTTP_AUTHORIZATION=f"Token {make_token(admin, 'admin').key}")
    long_reason = "x" * (REASON_MAX + 1)
    response = client.post(f"/api/v1/releases/{awaiting.pk}/reject", {"reason": long_reason}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "reason"
    too_long = "x" * (JUSTIFICATION_MAX + 1)
    response = _approve(client, awaiting, reason="ok", override=True, justification=too_long)
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "justification"
    run, _, _ = claimed_run()
    response = client.post(f"/api/v1/runs/{run.pk}/cancel", {"reason": long_reason}, format="json")
    assert response.status_code == 400 and Run.objects.get(pk=run.pk).state == "running"
    # The pages post the same fields to the same services: refused there too.
    page = Client()
    page.force_login(admin)
    page.post(f"/runs/{run.pk}/cancel", {"reason": long_reason})
    assert Run.objects.get(pk=run.pk).state == "running"
    worker = Worker.objects.get(pk=run.worker_id)
    page.post(f"/workers/{worker.pk}/revoke", {"reason": long_reason})
    assert Worker.objects.get(pk=worker.pk).revoked_at is None
    response = client.post("/api/v1/tokens/", {"role": "viewer", "name": "n" * 101}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "name"
    response = client.post("/api/v1/routes/", {"slug": "r1", "description": "d" * 4001}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "description"


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped(claimed_run: Any, admin: Any) -> None:
    run, _, spec = claimed_run()
    outcome = outcome_for(spec, tokens=8)
    hostile = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\tx", "\rx"]
    requests = outcome["baseline"]["levels"][0]["requests"]
    for request, prompt_id in zip(requests, hostile, strict=False):
        request["prompt_id"] = prompt_id
    requests[2]["prompt_id"] = hostile[2]
    outcome["baseline"]["levels"][1]["requests"][0]["prompt_id"] = hostile[3]
    worker = Worker.objects.get(pk=run.worker_id)
    run_result_submit(run_id=run.pk, worker=worker, attempt=1, payload=json.loads(json.dumps(outcome)))
    assert RunResult.objects.filter(run=run).exists()
    client = APIClient(HTTP_AUTHORIZATION=f"Token {make_token(admin, 'admin').key}")
    text = client.get(f"/api/v1/runs/{run.pk}/result.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    ids = [r["prompt_id"] for r in rows if r["arm"] == "baseline"]
    assert ids[:3] == ['\'=HYPERLINK("http://x","y")', "'+cmd|' /C calc'!A0", "'-2+3"]
    assert "'@SUM(1)" in ids
    assert all(
        not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows for cell in r.values() if cell
    )
    assert rows[0]["ttft_ms"] and float(rows[0]["ttft_ms"]) > 0  # numbers stay numbers
