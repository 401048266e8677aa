"""Exit codes that gate (DESIGN §8): against a real server, `status`, `wait` and
`submit --wait` exit 4 on a marginal verdict (0 with --allow-marginal), 1 on a fail, 0 on a
pass, and say the verdict's deciding rule with its interval (text and --output json).
Every verdict is one the real gate produced on synthetic harness results."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from benchmarks_app.gate import GateRules, evaluate_gate, gate_input_from_harness
from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create, release_gate_complete
from specpact.cli import online
from specpact.cli.main import main
from tests.support.charts import harness
from tests.support.factories import make_token, variant
from tests.support.releases import route_identity_change

pytestmark = pytest.mark.django_db(transaction=True)

# Requests per level; one in thirty fails in the synthetic results, so 29 are measured.
N = 30
MEASURED = 29


def _gate(min_ratio: float | None, **extra: Any) -> dict[str, Any]:
    """The real gate on a 1.5x-faster synthetic candidate; `min_ratio` None sets the bar
    just under the measured speedup, so the estimate meets it and the bound does not."""
    rng = np.random.default_rng(3)
    base = harness(rng, speedup=1.0, levels=(1,), n=N)
    cand = harness(rng, speedup=1.5, levels=(1,), n=N, spec=True)
    data = gate_input_from_harness(baseline={"chat": base}, candidate={"chat": cand})
    if min_ratio is None:
        probe = evaluate_gate(
            data, GateRules.from_measurement({"improve": [{"metric": "tpot_p50", "min_ratio": 1.0}]})
        )
        min_ratio = round(float(probe.checks[0].estimate or 0) * 0.97, 3)
    rules = {"improve": [{"metric": "tpot_p50", "min_ratio": min_ratio, "confidence": 0.95}], **extra}
    return evaluate_gate(data, GateRules.from_measurement(rules), seed=0).as_dict()


@pytest.fixture(scope="module")
def gates() -> dict[str, dict[str, Any]]:
    found = {
        "marginal": _gate(None),
        "fail": _gate(3.0),
        # Two rules that pass: the one whose bound comes closer to its bar decides.
        "pass": _gate(1.0, non_inferiority=[{"metric": "e2e_p50", "max_ratio": 1.5}]),
    }
    assert {verdict: gate["verdict"] for verdict, gate in found.items()} == {v: v for v in found}
    return found


@pytest.fixture
def keys(proposer: Any, approver: Any) -> dict[str, str]:
    return {
        "operator": make_token(proposer, "operator").key,
        "approver": make_token(approver, "approver").key,
    }


def cli(live_server: Any, key: str, *args: str) -> int:
    return main([*args, "--url", live_server.url, "--token", key])


def judged(route: Route, proposer: Any, gate: dict[str, Any], tokens: int = 4) -> Release:
    """A release of a route-identity change (benchmarking) that the gate then judged."""
    version = route_identity_change(route, tokens)
    release = release_create(route=route, candidate_version=version.number, actor=proposer)
    assert release.state == "benchmarking"
    return release_gate_complete(release=release, verdict=gate["verdict"], gate_result=gate)


def deciding_check(gate: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(c for c in gate["checks"] if c["rule_id"] == rule_id)


def test_a_marginal_release_exits_4_from_status_and_wait_and_0_with_allow_marginal(
    live_server: Any, route_v1: Route, proposer: Any, keys: dict[str, str], gates: Any, capsys: Any
) -> None:
    release = str(judged(route_v1, proposer, gates["marginal"]).pk)
    assert cli(live_server, keys["operator"], "status", release) == 4
    assert cli(live_server, keys["operator"], "status", release, "--allow-marginal") == 0
    assert cli(live_server, keys["operator"], "wait", release, "--timeout", "5") == 4
    assert cli(live_server, keys["operator"], "wait", release, "--timeout", "5", "--allow-marginal") == 0
    check = deciding_check(gates["marginal"], "improve[0]")
    out = capsys.readouterr().out
    # The text says the deciding rule with its numbers, as the JSON does.
    assert (
        f"decided by improve[0] (tpot_p50, lane chat, concurrency 1): {check['estimate']:.2f}× "
        f"[{check['ci_low']:.2f}, {check['ci_high']:.2f}], required ≥ {check['required']:g}×, "
        f"n {MEASURED} per arm"
    ) in out

    for command in (["status", release], ["wait", release, "--timeout", "5"]):
        assert cli(live_server, keys["operator"], *command, "--output", "json") == 4
        body = json.loads(capsys.readouterr().out)
        assert body["id"] == int(release) and body["gate_verdict"] == "marginal"
        decision = body["decision"]
        assert decision["verdict"] == "marginal"
        rule = decision["deciding_rule"]
        assert (rule["rule"], rule["metric"], rule["lane"], rule["level"]) == (
            "improve[0]",
            "tpot_p50",
            "chat",
            1,
        )
        assert rule["value"] == check["estimate"] >= rule["required"] == check["required"]
        assert rule["interval"] == [check["ci_low"], check["ci_high"]] and check["ci_low"] < check["required"]
        assert rule["n"] == MEASURED and "not enough evidence" in rule["reason"]


def test_submit_wait_exits_4_on_a_marginal_verdict_and_0_with_allow_marginal(
    live_server: Any,
    route_v1: Route,
    proposer: Any,
    keys: dict[str, str],
    gates: Any,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    progress = online._run_progress

    def gate_speaks(client: Any, release_id: int) -> str:
        # While the CLI polls the benchmarking release, the gate's verdict lands.
        release = Release.objects.get(pk=release_id)
        if release.state == "benchmarking":
            release_gate_complete(release=release, verdict="marginal", gate_result=gates["marginal"])
        return progress(client, release_id)

    monkeypatch.setattr(online, "_run_progress", gate_speaks)
    contract = tmp_path / "contract.yaml"
    for tokens, extra, exit_code in ((2, [], 4), (3, ["--allow-marginal"], 0)):
        doc = variant(route_v1.active_version.document, **{"speculation.num_speculative_tokens": tokens})
        contract.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        args = ("submit", str(contract), "--wait", "--timeout", "30", "--output", "json", *extra)
        assert cli(live_server, keys["operator"], *args) == exit_code
        body = json.loads(capsys.readouterr().out)
        assert body["release"]["gate_verdict"] == "marginal"
        assert body["decision"]["verdict"] == "marginal"
        assert body["decision"]["deciding_rule"]["rule"] == "improve[0]"
        # The marginal release stays open for review: withdraw it before the next submit.
        reason = ("cancel", str(body["release"]["id"]), "--reason", "more requests")
        assert cli(live_server, keys["operator"], *reason) == 0
        capsys.readouterr()


def test_a_fail_still_exits_1_and_a_pass_0_each_with_its_deciding_rule(
    live_server: Any, route_v1: Route, proposer: Any, keys: dict[str, str], gates: Any, capsys: Any
) -> None:
    failed = judged(route_v1, proposer, gates["fail"])
    assert cli(live_server, keys["operator"], "status", str(failed.pk), "--output", "json") == 1
    rule = json.loads(capsys.readouterr().out)["decision"]["deciding_rule"]
    check = deciding_check(gates["fail"], "improve[0]")
    assert check["verdict"] == "fail" and rule["value"] == check["estimate"] < rule["required"] == 3.0
    # --allow-marginal lets through only a marginal verdict.
    assert cli(live_server, keys["operator"], "status", str(failed.pk), "--allow-marginal") == 1
    assert cli(live_server, keys["operator"], "cancel", str(failed.pk), "--reason", "too slow") == 0

    passed = judged(route_v1, proposer, gates["pass"], tokens=2)
    capsys.readouterr()
    assert cli(live_server, keys["operator"], "status", str(passed.pk), "--output", "json") == 0
    decision = json.loads(capsys.readouterr().out)["decision"]
    assert decision["verdict"] == "pass"

    # A pass is decided by the rule whose bound came closest to its bar (log scale).
    def margin(c: dict[str, Any]) -> float:
        if c["kind"] == "improve":
            return math.log(c["ci_low"] / c["required"])
        return math.log(c["required"] / c["ci_high"])

    closest = min(gates["pass"]["checks"], key=margin)
    assert {c["rule_id"] for c in gates["pass"]["checks"]} == {"improve[0]", "non_inferiority[0]"}
    assert decision["deciding_rule"]["rule"] == closest["rule_id"]
    assert decision["deciding_rule"]["interval"] == [closest["ci_low"], closest["ci_high"]]
