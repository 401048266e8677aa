"""The release page's evidence: verdict and reasons first, charts built on the server from
the runs' aggregates and the gate result, raw-result downloads, and the benchmark's
progress polled by htmx while it runs."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_fail, run_start
from releases_app.models import Release
from releases_app.services import release_conclude
from tests.support.benchmarked import (
    active_route,
    benchmarked_release,
    candidate_document,
    finish_runs,
    propose_candidate,
    register_worker,
)
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db

# The release page, however many lanes and runs its benchmark had.
RELEASE_PAGE_QUERIES = 8

FIGURE = re.compile(r'<script type="application/json" data-plotly="([^"]+)">(.*?)</script>', re.S)


def figures(body: str) -> dict[str, dict[str, Any]]:
    return {chart_id: json.loads(text) for chart_id, text in FIGURE.findall(body)}


def test_the_verdict_block_comes_once_at_the_top_with_rules_in_words(
    benchmarked: Release, signed_in: Client
) -> None:
    body = signed_in.get(f"/releases/{benchmarked.pk}/").content.decode()
    assert body.count("data-verdict-block") == 1
    verdict = body[
        body.index('id="gate-verdict"') : body.index("</section>", body.index('id="gate-verdict"'))
    ]
    assert body.index('id="gate-verdict"') < body.index("What changes") < body.index('data-plotly="')
    assert f'badge-{benchmarked.gate_verdict}">{benchmarked.gate_verdict}</span>' in verdict
    assert f"What {benchmarked.gate_verdict} means:" in verdict
    # Rules by what they say, never by their internal label.
    for rule in benchmarked.gate_result["rules"]:
        assert escape(rule["description"]) in verdict
        assert rule["rule_id"] + ":" not in body
    # Each check's reason, per lane and level, once on the page.
    for check in benchmarked.gate_result["checks"]:
        reason = escape(check["reason"])
        assert reason in verdict
        if check["verdict"] == "pass" or check["rule_id"] != _deciding_rule(benchmarked):
            assert body.count(reason) == 1, reason
    assert "Lane summarization: TPOT p50" in verdict and "better at concurrency 1 [" in verdict
    # One confidence figure per rule: the per-test Holm level is explained in the method notes only.
    assert "97.5%" not in verdict.split("method notes")[0]
    for crossover in benchmarked.gate_result["crossover"]:
        assert escape(f"lane {crossover['lane']}: {crossover['reason']}") in verdict


def _deciding_rule(release: Release) -> str | None:
    gate = release.gate_result
    return next((r["rule_id"] for r in gate["rules"] if r["verdict"] == gate["verdict"] != "pass"), None)


def test_charts_are_built_on_the_server_with_baseline_and_candidate_traces(
    benchmarked: Release, signed_in: Client
) -> None:
    body = signed_in.get(f"/releases/{benchmarked.pk}/").content.decode()
    charts = figures(body)
    kinds = ("speedup", "tpot", "ttft", "chunks", "acceptance", "positions")
    assert {f"chart-lane{i}-{k}" for i in range(2) for k in kinds} | {"chart-stability"} == set(charts)
    # The emulators report no memory: that panel says so in words instead of an empty chart.
    for i in range(2):
        assert f'<figure class="chart-box no-data" id="chart-lane{i}-memory">' in body
    assert "Memory was not reported." in body
    for chart_id, fig in charts.items():
        names = {t.get("name") for t in fig["data"]}
        if chart_id.endswith(("-tpot", "-ttft", "-chunks")):
            assert {"baseline", "candidate"} <= names, chart_id
    # Speculation's own numbers from the engine's counters: two of four drafts accepted.
    acceptance = charts["chart-lane0-acceptance"]["data"][0]
    assert acceptance["y"] == [0.5, 0.5] and acceptance["text"][0] == "50% (mean length 3.00)"
    # ...and per draft position (vLLM's per-position counters): the first two always accepted.
    positions = charts["chart-lane0-positions"]["data"]
    assert [t["name"] for t in positions] == ["candidate at 1", "candidate at 4"]
    assert positions[0]["y"] == [1.0, 1.0, 0.0, 0.0]
    # The crossover the gate found (the candidate engine slows down under load) is marked
    # on the summarization lane's speedup chart.
    speedup = charts["chart-lane1-speedup"]
    assert "TPOT p50 speedup vs. load, lane summarization" in speedup["layout"]["title"]["text"]
    crossover = next(c for c in benchmarked.gate_result["crossover"] if c["lane"] == "summarization")
    assert crossover["level"] is not None, crossover
    marks = [a.get("text") for a in speedup["layout"]["annotations"]]
    assert f"crossover at {crossover['level']:g}" in marks, marks
    [trace] = speedup["data"]
    assert trace["name"] == "speedup with its interval" and trace["error_y"]["arrayminus"][0] > 0
    # No raw samples on the page: figures are built from aggregates (quantile sketches).
    assert len(body) < 400_000
    assert '"output_token_ids"' not in body
    assert 'src="/static/vendor/plotly-cartesian.min.js"' in body and 'src="/static/js/charts.js"' in body


def test_finished_runs_link_their_raw_results(benchmarked: Release, signed_in: Client) -> None:
    body = signed_in.get(f"/releases/{benchmarked.pk}/").content.decode()
    for run in Run.objects.filter(release=benchmarked):
        link = f'href="/api/v1/runs/{run.pk}/result" download="run-{run.pk}-result.json"'
        assert link in body
        result = signed_in.get(f"/api/v1/runs/{run.pk}/result").json()
        assert result["run"] == run.pk and result["result"]["candidate"]["levels"]


def test_a_running_benchmark_polls_its_progress_until_it_ends(
    proposer: Any, approver: Any, signed_in: Client
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    assert release.state == "benchmarking"
    url = f"/releases/{release.pk}/evidence/progress"
    page = signed_in.get(f"/releases/{release.pk}/").content.decode()
    assert f'hx-get="{url}" hx-trigger="every 3s" hx-swap="outerHTML"' in page
    assert "waiting in <code>pool.gpu</code>" in page and "Gate verdict" not in page

    partial = signed_in.get(url, HTTP_HX_REQUEST="true")
    assert partial.status_code == 200 and "HX-Refresh" not in partial
    assert f'hx-get="{url}"' in partial.content.decode()
    assert "<html" not in partial.content.decode()  # a fragment, not a page

    finish_runs(release)
    done = signed_in.get(url, HTTP_HX_REQUEST="true")
    assert done["HX-Refresh"] == "true"  # the page reloads to show the verdict and the charts
    assert "hx-get" not in done.content.decode()


def test_a_failed_benchmark_says_why_and_draws_nothing(
    proposer: Any, approver: Any, signed_in: Client
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    worker = register_worker()
    for run in Run.objects.filter(release=release):
        run_start(run_id=run.pk, worker=worker, attempt=1)
        run_fail(
            run_id=run.pk, worker=worker, attempt=1, kind="error", reason="vllm exited: CUDA out of memory"
        )
    release_conclude(release_id=release.pk)
    body = signed_in.get(f"/releases/{release.pk}/").content.decode()
    assert "No verdict: benchmark did not complete" in body and "CUDA out of memory" in body
    assert "data-plotly" not in body and "plotly-cartesian.min.js" not in body


def test_a_run_nobody_can_take_says_so_until_a_fitting_worker_is_online(
    proposer: Any, approver: Any, signed_in: Client
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    url = f"/releases/{release.pk}/evidence/progress"
    assert "Waiting for a worker" in signed_in.get(url).content.decode()
    register_worker()  # a GPU box: it consumes pool.gpu
    assert "Waiting for a worker" not in signed_in.get(url).content.decode()


def test_progress_of_an_unknown_release_is_404(signed_in: Client) -> None:
    assert signed_in.get("/releases/999/evidence/progress").status_code == 404


def test_the_release_page_reads_in_constant_queries(proposer: Any, approver: Any, signed_in: Client) -> None:
    one_lane = candidate_document()
    del one_lane["measurement"]["workloads"]["summarization"]
    small = benchmarked_release(proposer=proposer, approver=approver, slug="one-lane", candidate=one_lane)
    large = benchmarked_release(proposer=proposer, approver=approver, slug="two-lanes")
    assert Run.objects.filter(release=small).count() == 1 and Run.objects.filter(release=large).count() == 2
    for release in (small, large):
        with assert_num_queries(RELEASE_PAGE_QUERIES):
            assert signed_in.get(f"/releases/{release.pk}/").status_code == 200


def test_the_release_page_never_reads_raw_samples(benchmarked: Release, signed_in: Client) -> None:
    with assert_num_queries(RELEASE_PAGE_QUERIES) as ctx:
        assert signed_in.get(f"/releases/{benchmarked.pk}/").status_code == 200
    assert any('"aggregates"' in q["sql"] for q in ctx.captured_queries)
    assert not any('"payload"' in q["sql"] for q in ctx.captured_queries)
