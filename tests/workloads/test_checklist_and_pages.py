"""Question 5 answered from a registered workload (after a real harness run on it), and
the workload pages: statistics, charts, the lanes and contracts that use it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_result_submit, run_start
from benchmarks_app.services.runs import run_create
from contracts_app.models import ContractVersion, Route
from contracts_app.selectors import route_get
from contracts_app.services.activation import route_activate
from dashboard_app.selectors.checklist import route_checklist
from tests.support.launcher import Emulators
from tests.support.workers import register
from tests.workloads.conftest import chat_contract, client_for, upload, upload_contract
from worker.agent.execute import execute
from worker.spec import RunSpec

pytestmark = pytest.mark.django_db
NO_BROKER = "redis://127.0.0.1:9/0"
SYSTEM = {"role": "system", "content": "You are the support desk of Harbor Calendars."}


def production_logs(conversations: int = 12) -> str:
    """Chat-completions request logs (the shapes in samples.py): each conversation's
    second request carries the first one and its answer."""
    lines = []
    for i in range(conversations):
        first = [SYSTEM, {"role": "user", "content": f"Calendar {i} stopped syncing on my Atlas phone."}]
        answer = {"role": "assistant", "content": f"Which version of the app is calendar {i} on?"}
        second = [*first, answer, {"role": "user", "content": f"Version 4.{i}, updated last week."}]
        lines += [
            json.dumps({"model": "m", "messages": first}),
            json.dumps({"model": "m", "messages": second}),
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def measured(operator: Any, tmp_path: Path) -> dict[str, Any]:
    """support-chat v2 measures its chat lane on a registered workload imported from
    production logs; a run of it went through the real harness and is the route's active
    version's evidence."""
    client = client_for(operator)
    body = upload(client, production_logs(), format="openai", source="production logs").json()
    for doc in (chat_contract("builtin:chat"), chat_contract(body["dataset"])):
        assert upload_contract(client, doc).status_code == 201
    baseline, candidate = ContractVersion.objects.order_by("number")
    with Emulators() as emulators:
        servers = [emulators.start("--pattern", str(k), "--step-ms", "2") for k in (1, 3)]
        endpoints = {
            arm: {"base_url": s.base_url, "model": "test-model"}
            for arm, s in zip(("baseline", "candidate"), servers, strict=True)
        }
        with override_settings(CELERY_BROKER_URL=NO_BROKER):
            run = run_create(
                route=baseline.route, baseline=baseline, candidate=candidate, lane="chat", actor=operator,
                engine_kind="openai", endpoints=endpoints,
            )  # fmt: skip
        reg = register("w1")
        run_start(run_id=run.pk, worker=reg.worker, attempt=1)
        worker = APIClient()
        worker.credentials(HTTP_AUTHORIZATION=f"Token {reg.token}")
        path = tmp_path / f"{body['name']}.jsonl"
        path.write_bytes(worker.get(f"/api/v1/runs/{run.pk}/workload?attempt=1").content)
        outcome = execute(RunSpec.model_validate(run.spec), lambda *_: None, workload_file=path)
    run_result_submit(run_id=run.pk, worker=reg.worker, attempt=1, payload=outcome)
    with transaction.atomic():
        route = Route.objects.select_for_update().get(slug="support-chat")
        route_activate(route=route, version=candidate)
    return {"body": body, "run": Run.objects.get(pk=run.pk), "outcome": outcome}


def test_question_5_names_the_workload_its_digest_source_date_levels_and_lanes(
    measured: dict[str, Any],
) -> None:
    body, run = measured["body"], measured["run"]
    q5 = route_checklist(route_get("support-chat")).answers[4]
    today = timezone.now().strftime("%Y-%m-%d")
    assert q5.status == "measured", q5.answer
    assert (
        f"chat on workload {body['name']} ({body['digest'][:19]}…, 12 conversations imported from "
        f"production logs on {today}) at concurrency 1\u201332 (run {run.pk})"
    ) in q5.answer
    assert "1 of 1 allowed lane." in q5.answer
    # The result names the whole workload and its digest, not the slices the levels ran.
    workload = measured["outcome"]["candidate"]["workload"]
    assert (workload["digest"], workload["prompts"], workload["conversations"]) == (body["digest"], 24, 12)


def test_the_workload_page_shows_its_numbers_charts_and_the_contracts_that_use_it(
    measured: dict[str, Any], viewer: Any
) -> None:
    body = measured["body"]
    page = client_for(viewer).get(f"/workloads/{body['name']}@{body['digest']}/")
    assert page.status_code == 200
    html = page.content.decode()
    for chart in ("prompt-length", "output-length", "turns", "ngram-overlap"):
        assert f'data-plotly="chart-{chart}"' in html
    # The digest may wrap (`breakable` puts <wbr> in it); the text reads the same.
    assert body["digest"] in html.replace("<wbr>", "") and "production logs" in html
    assert re.search(
        r'href="/routes/support-chat/versions/2/">v2</a> <span class="badge badge-active">active', html
    )
    assert "3-gram overlap" in html and "Not redacted on import" in html
    listing = client_for(viewer).get("/workloads/").content.decode()
    assert body["name"] in listing


def test_a_workload_page_nobody_may_see_is_404(operator: Any, viewer: Any) -> None:
    body = upload(client_for(operator)).json()
    assert client_for(viewer).get(f"/workloads/{body['name']}@{body['digest']}/").status_code == 404
    assert client_for(operator).get(f"/workloads/{body['name']}/").status_code == 200
