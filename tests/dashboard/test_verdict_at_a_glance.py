"""The release page's verdict block: the deciding rule in words with its interval, what
marginal means and how many requests would settle it, small samples said in the verdict,
and an approve form that says what approving a marginal release accepts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.test import Client

from benchmarks_app.gate import GateRules, evaluate_gate, gate_input_from_harness
from contracts_app.models import Route
from dashboard_app.selectors.verdict import requests_to_settle, verdict_at_a_glance
from releases_app.models import Release
from releases_app.services import release_create, release_gate_complete
from tests.support.charts import harness
from tests.support.releases import route_identity_change

# Requests per level: one in thirty fails in the synthetic results, so 29 are measured.
N = 30
MEASURED = 29


@pytest.fixture(scope="module")
def marginal() -> dict[str, Any]:
    """A real gate result whose improve rule is marginal: the bar is set just under the
    measured speedup, so the estimate meets it and 29 requests leave the bound below it."""
    rng = np.random.default_rng(3)
    base = harness(rng, speedup=1.0, levels=(1,), n=N)
    cand = harness(rng, speedup=1.5, levels=(1,), n=N, spec=True)
    data = gate_input_from_harness(baseline={"chat": base}, candidate={"chat": cand})
    probe = evaluate_gate(
        data, GateRules.from_measurement({"improve": [{"metric": "tpot_p50", "min_ratio": 1.0}]})
    )
    bar = round(probe.checks[0].estimate * 0.97, 3)
    rules = {
        "improve": [{"metric": "tpot_p50", "min_ratio": bar, "confidence": 0.95}],
        "non_inferiority": [{"metric": "ttft_p95", "max_ratio": 3.0}],
    }
    result = evaluate_gate(data, GateRules.from_measurement(rules), seed=0).as_dict()
    assert result["verdict"] == "marginal", result["summary"]
    return result


def test_marginal_says_what_it_means_and_how_many_requests_would_settle_it(marginal: dict[str, Any]) -> None:
    glance = verdict_at_a_glance(marginal)
    assert glance is not None and glance["rule"]["rule_id"] == "improve[0]"
    check = glance["check"]
    assert check["estimate"] >= check["required"] > check["ci_low"]
    assert glance["settle"] > MEASURED == glance["n"]
    # By the interval's width: at the settling count the lower half-width (log scale,
    # shrinking as 1/sqrt(n)) fits between the estimate and the bar.
    half = np.log(check["estimate"] / check["ci_low"]) * np.sqrt(MEASURED / glance["settle"])
    assert half <= np.log(check["estimate"] / check["required"]) + 1e-9
    picture = glance["picture"]
    assert picture["lo"] < picture["bar"] <= picture["est"] < picture["hi"]
    assert "Not enough evidence either way" in glance["meaning"]


def test_no_settling_count_without_an_interval() -> None:
    assert requests_to_settle({"kind": "improve", "estimate": 1.4, "required": 1.3}) is None


def test_a_tail_quantile_on_too_few_requests_is_said_in_the_verdict(marginal: dict[str, Any]) -> None:
    assert marginal["small_samples"] == [
        {"rule_id": "non_inferiority[0]", "metric": "ttft_p95", "n": MEASURED, "needed": 100}
    ]
    assert f"TTFT p95 rests on {MEASURED} requests per arm (~100 needed)" in marginal["summary"]
    assert "improve[0]" not in marginal["summary"]


@pytest.mark.django_db
def test_the_page_shows_one_verdict_block_and_an_approve_form_that_says_what_it_accepts(
    route_v1: Route, proposer: Any, approver: Any, marginal: dict[str, Any]
) -> None:
    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    release_gate_complete(release=release, verdict="marginal", gate_result=marginal)
    client = Client()
    client.force_login(approver)
    body = client.get(f"/releases/{Release.objects.get(pk=release.pk).pk}/").content.decode()
    assert body.count("data-verdict-block") == 1
    assert "What marginal means:" in body and "requests per level</strong> (now 29) would decide this" in body
    assert "Small samples: <code>ttft_p95</code> rests on 29 requests per arm (about 100 needed)" in body
    assert "Approve and activate despite a marginal gate" in body
    assert "The gate is marginal: approving accepts a change whose evidence does not show" in body
    assert 'class="interval-picture"' in body and "<rect" in body
