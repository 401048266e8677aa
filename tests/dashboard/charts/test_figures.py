"""Every chart builder returns a Plotly figure with the expected traces, names and axes."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from dashboard_app.charts import (
    acceptance_by_level,
    figure_json,
    fleet_heatmap,
    latency_distribution,
    memory_by_level,
    output_stability,
    release_figures,
    speedup_vs_load,
    tokens_per_chunk,
    ttft_by_level,
)
from dashboard_app.charts.style import ARM_STYLE


def names(fig: dict) -> list[str]:
    return [t.get("name") for t in fig["data"]]


def valid(fig: dict) -> dict:
    go.Figure(fig)  # plotly's own validation: every property must exist in plotly.js
    json.dumps(fig, allow_nan=False)
    return fig


def test_latency_distributions_have_one_ecdf_per_arm_and_level(run):
    fig = valid(latency_distribution(run["baseline"], run["candidate"], lane="chat"))
    assert names(fig) == ["baseline", "candidate"] * 3
    assert [t["showlegend"] for t in fig["data"]] == [True, True, False, False, False, False]
    ecdf = fig["data"][0]
    assert ecdf["y"][0] == 0 and ecdf["y"][-1] == 1 and ecdf["x"] == sorted(ecdf["x"])
    assert fig["layout"]["xaxis"]["title"]["text"] == "TPOT (ms per output token)"
    assert fig["layout"]["xaxis"]["type"] == "log"


def test_baseline_and_candidate_differ_in_dash_and_marker_not_only_colour(run):
    fig = ttft_by_level(run["baseline"], run["candidate"], lane="chat")
    base, cand = fig["data"]
    assert (base["name"], cand["name"]) == ("baseline", "candidate")
    assert base["line"]["dash"] != cand["line"]["dash"]
    assert base["marker"]["symbol"] != cand["marker"]["symbol"]
    assert base["line"]["color"] == ARM_STYLE["baseline"]["color"] == "#0072B2"


def test_ttft_by_level_plots_medians_with_p5_p95_whiskers(run):
    fig = valid(ttft_by_level(run["baseline"], run["candidate"], lane="chat"))
    base = fig["data"][0]
    assert len(base["y"]) == 3 and all(v > 0 for v in base["error_y"]["array"])
    assert fig["layout"]["yaxis"]["title"]["text"] == "TTFT (ms)"
    assert fig["layout"]["xaxis"]["title"]["text"] == "concurrency (concurrent requests)"


def test_speedup_vs_load_draws_the_deciding_intervals_as_error_bars_the_bar_and_the_crossover(run):
    fig = valid(speedup_vs_load(run["gate"], lane="chat"))
    assert names(fig) == ["speedup with its interval"]
    crossover = run["gate"]["crossover"][0]
    [trace] = fig["data"]
    assert trace["y"] == [p["estimate"] for p in crossover["levels"]]
    # Where the improve rule tested a level, the whisker is that test's interval: the one
    # its verdict rests on.
    checks = {c["level"]: c for c in run["gate"]["checks"] if c["kind"] == "improve"}
    assert checks  # the rule applies at concurrency <= 4
    for i, level in enumerate(trace["x"]):
        low = checks[level]["ci_low"] if level in checks else crossover["levels"][i]["ci_low"]
        high = checks[level]["ci_high"] if level in checks else crossover["levels"][i]["ci_high"]
        assert trace["y"][i] - trace["error_y"]["arrayminus"][i] == pytest.approx(low)
        assert trace["y"][i] + trace["error_y"]["array"][i] == pytest.approx(high)
    # No point sits on the plot's edge.
    low_edge, high_edge = fig["layout"]["xaxis"]["range"]
    assert 10**low_edge < min(trace["x"]) and 10**high_edge > max(trace["x"])
    shapes = fig["layout"]["shapes"]
    assert {s["y0"] for s in shapes if s["type"] == "line" and s.get("yref") == "y"} >= {1, 1.2}
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    if crossover["level"] is not None:
        assert f"crossover at {crossover['level']:g}" in texts
    assert "required 1.2×" in texts


def test_a_single_level_is_a_dot_with_its_whisker(run):
    gate = dict(run["gate"])
    gate["crossover"] = [{**gate["crossover"][0], "levels": gate["crossover"][0]["levels"][:1]}]
    [trace] = valid(speedup_vs_load(gate, lane="chat"))["data"]
    assert trace["mode"] == "markers" and trace["error_y"]["arrayminus"][0] > 0


def test_speedup_for_an_unknown_lane_says_so():
    fig = valid(speedup_vs_load({"crossover": [], "checks": []}, lane="nope"))
    assert fig["data"] == [] and "No level could be compared." in fig["layout"]["annotations"][0]["text"]


def test_tokens_per_chunk_shows_speculations_bigger_chunks(run):
    fig = valid(tokens_per_chunk(run["baseline"], run["candidate"], lane="chat"))
    base, cand = fig["data"]
    assert (base["name"], cand["name"]) == ("baseline", "candidate")
    assert base["y"] == [1, 1, 1] and all(y > 2 for y in cand["y"])
    assert cand["marker"]["pattern"]["shape"] == "/" and base["marker"]["pattern"]["shape"] == ""


def test_acceptance_shows_the_candidate_and_names_what_is_not_reported(run):
    fig = valid(acceptance_by_level(run["candidate"], lane="chat"))
    assert names(fig) == ["candidate"] and "mean length" in fig["data"][0]["text"][0]
    empty = valid(acceptance_by_level(run["baseline"], lane="chat"))
    assert empty["data"] == [] and "not reported" in empty["layout"]["annotations"][0]["text"]


def test_output_stability_and_memory(run):
    stab = valid(output_stability(run["gate"]))
    assert names(stab) == ["candidate"] and stab["data"][0]["text"] == ["100.0% (pass)"]
    mem = valid(memory_by_level(run["baseline"], run["candidate"], lane="chat", min_headroom_gib=4))
    assert names(mem) == ["baseline", "candidate"] and mem["data"][0]["y"] == [19, 16, 4]
    assert mem["layout"]["yaxis"]["title"]["text"] == "headroom (GiB)"


def test_the_fleet_heatmap_prints_every_value_and_blanks_the_unmeasured():
    fig = valid(
        fleet_heatmap(
            [
                {"lane": "chat", "route": "support-chat", "speedup": 1.84, "verdict": "pass"},
                {"lane": "summarization", "route": "contract-summaries", "speedup": 0.9},
            ]
        )
    )
    heat = fig["data"][0]
    assert heat["x"] == ["contract-summaries", "support-chat"] and heat["y"] == ["chat", "summarization"]
    assert heat["text"] == [["—", "1.84×<br>pass"], ["0.90×", "—"]]
    assert heat["z"][0][0] is None and heat["zmid"] == 0
    assert fleet_heatmap([])["data"] == []


@pytest.mark.parametrize("payload", ["</script><script>alert(1)</script>", "a & b <!-- c -->", "\u2028"])
def test_figure_json_cannot_end_its_script_element(payload):
    fig = {"data": [{"name": payload}], "layout": {}}
    text = figure_json(fig)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == fig


def test_release_figures_builds_every_chart_with_unique_ids(run):
    figures = release_figures(
        baseline={"chat": run["baseline"]},
        candidate={"chat": run["candidate"]},
        gate=run["gate"],
        min_headroom_gib=4,
    )
    ids = [f["id"] for f in figures]
    assert ids == [
        "lane0-speedup",
        "lane0-tpot",
        "lane0-ttft",
        "lane0-chunks",
        "lane0-acceptance",
        "lane0-positions",
        "lane0-memory",
        "stability",
    ]
    assert all(valid(f["figure"]) for f in figures)
    assert figures[1]["title"] == "TPOT distribution, lane chat"
    assert len(release_figures(baseline={}, candidate={})) == 0
