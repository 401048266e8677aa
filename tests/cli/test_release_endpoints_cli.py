"""A release benchmarked on live endpoints from the CLI, against a real server (live_server)
and vLLM-shaped engine emulators: `submit --baseline-endpoint --candidate-endpoint` proposes
it and says what it waits for (`--wait` keeps saying so until its timeout, exit 3);
`endpoint set` points the canary at it; `releases benchmark` starts it (0) or is refused
with the reason (1: the canary expects something else, or drifted)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks_app.models import Run
from contracts_app.models import ContractVersion
from live_app.models import Endpoint
from releases_app.models import Release
from specpact.cli.main import main
from tests.live.conftest import LOOPBACK_AND_PRIVATE, vllm_claim
from tests.support.factories import example, make_token, make_user, make_version, variant
from tests.support.launcher import reserved_port
from tests.support.releases import activate

pytestmark = pytest.mark.django_db(transaction=True)
DEV = {"VLLM_SERVER_DEV_MODE": "1"}
ROUTE = "contract-summaries"
NAMES = {"baseline": "prod-eu", "candidate": "canary"}
ON_ENDPOINTS = ("--baseline-endpoint", "prod-eu", "--candidate-endpoint", "canary")


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    """The emulators listen on loopback, which the default networks leave out."""
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE
    settings.ENDPOINT_PROBE_TIMEOUT_S = 3


@pytest.fixture
def keys(db: None) -> dict[str, str]:
    """v1 of the route (n-gram, 5 tokens) active, and the tokens a pipeline and a person use."""
    operator, approver = make_user("ci-operator", "operator"), make_user("ci-approver", "approver")
    activate(make_version(ROUTE, example()), operator, approver)
    return {
        "operator": make_token(operator, "operator").key,
        "viewer": make_token(make_user("ci-viewer", "viewer"), "viewer").key,
    }


@pytest.fixture
def candidate(tmp_path: Path) -> Path:
    """v2: 3 speculative tokens instead of 5, so it needs a benchmark."""
    path = tmp_path / "contract.yaml"
    doc = variant(example(), **{"speculation.num_speculative_tokens": 3})
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def prod(live_server: Any, keys: dict[str, str], emulator: Any) -> Any:
    """prod-eu, serving v1."""
    emu = emulator(*vllm_claim(), env=DEV)
    assert cli(live_server, keys["operator"], "endpoint", "add", ROUTE, "prod-eu", "--base-url", emu.base_url,
               "--engine", "vllm") == 0  # fmt: skip
    return emu


def cli(live_server: Any, key: str, *args: str) -> int:
    return main([*args, "--url", live_server.url, "--token", key])


def test_submit_takes_both_endpoint_options_or_neither(candidate: Path, capsys: Any) -> None:
    # Refused before anything is sent: a server that isn't there would be exit 3.
    with reserved_port() as port:
        url = f"http://127.0.0.1:{port}"
        for given in (ON_ENDPOINTS[:2], ON_ENDPOINTS[2:]):
            assert main(["submit", str(candidate), *given, "--url", url]) == 2
            assert "give both --baseline-endpoint and --candidate-endpoint" in capsys.readouterr().err
        assert main(["submit", str(candidate), *ON_ENDPOINTS, "--no-release", "--url", url]) == 2
        assert "--no-release opens no release" in capsys.readouterr().err
        assert main(["submit", str(candidate), *ON_ENDPOINTS[2:], "--url", url, "--output", "json"]) == 2
        assert json.loads(capsys.readouterr().out)["exit_code"] == 2


def test_submit_wait_on_endpoints_says_what_it_waits_for_until_its_timeout(
    live_server: Any, keys: dict[str, str], prod: Any, candidate: Path, capsys: Any
) -> None:
    capsys.readouterr()
    started = time.monotonic()
    code = cli(
        live_server, keys["operator"], "submit", str(candidate), *ON_ENDPOINTS, "--wait", "--timeout", "3"
    )
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    release = Release.objects.get(state="proposed")
    assert code == 3, (out, err)
    assert elapsed < 30
    assert release.endpoints == NAMES and not Run.objects.filter(release=release).exists()
    waits = f"waiting for its endpoints: canary must expect release:{release.pk}"
    assert f"release {release.pk}: proposed (gate: pending)" in out and waits in out
    progress = next(line for line in err.splitlines() if line.startswith("["))
    assert f"release {release.pk}: proposed, {waits}" in progress, err
    assert f"release {release.pk} still proposed after 3 s, {waits}" in err
    # `status` says it too, and --output json carries the server's words.
    assert cli(live_server, keys["operator"], "status", str(release.pk)) == 0
    assert waits in capsys.readouterr().out
    assert cli(live_server, keys["operator"], "status", str(release.pk), "--output", "json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["endpoints"] == NAMES and shown["waiting_for_endpoints"].startswith("its endpoints: canary")


def test_set_the_canary_then_benchmark_refused_until_it_conforms(
    live_server: Any, keys: dict[str, str], prod: Any, candidate: Path, emulator: Any, capsys: Any
) -> None:
    key = keys["operator"]
    assert cli(live_server, key, "submit", str(candidate), *ON_ENDPOINTS) == 0
    release = Release.objects.get(state="proposed")
    stale, good = emulator(*vllm_claim(), env=DEV), emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    # The canary is registered before the candidate is deployed on it: it still expects active.
    assert cli(live_server, key, "endpoint", "add", ROUTE, "canary", "--base-url", stale.base_url,
               "--engine", "vllm") == 0  # fmt: skip
    capsys.readouterr()
    assert cli(live_server, key, "releases", "benchmark", str(release.pk)) == 1
    assert f"canary expects active; the candidate endpoint of release {release.pk}" in capsys.readouterr().err

    assert (
        cli(live_server, key, "endpoint", "set", ROUTE, "canary", "--expects", f"release:{release.pk}") == 0
    )
    out, err = capsys.readouterr()
    assert f"{ROUTE}/canary: vllm at {stale.base_url}, expects release:{release.pk}, unknown" in out
    assert f"probe it now: specpact endpoint probe {ROUTE} canary" in err
    assert Endpoint.objects.get(name="canary").expects == f"release:{release.pk}"

    # Deployed there still with the old settings: the probe finds the drift, nothing starts.
    assert cli(live_server, key, "releases", "benchmark", str(release.pk), "--output", "json") == 1
    out, err = capsys.readouterr()
    refused = json.loads(out)
    assert refused["status"] == 409 and refused["exit_code"] == 1
    assert "Not benchmarked: canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in refused["error"]
    assert "canary drifted" in err
    assert Release.objects.get(pk=release.pk).state == "proposed"

    assert cli(live_server, key, "endpoint", "set", ROUTE, "canary", "--base-url", good.base_url,
               "--output", "json") == 0  # fmt: skip
    changed = json.loads(capsys.readouterr().out)
    assert changed["base_url"] == good.base_url and changed["expects"] == f"release:{release.pk}"
    assert cli(live_server, key, "releases", "benchmark", str(release.pk)) == 0
    out, err = capsys.readouterr()
    assert f"release {release.pk}: benchmarking (gate: pending)" in out
    assert "on prod-eu (baseline) and canary (candidate)" in out and "probing its endpoints" in err
    assert Release.objects.get(pk=release.pk).state == "benchmarking"
    assert {r.engine_kind for r in Run.objects.filter(release=release)} == {"openai"}
    # Started once: asking again is refused (1), not bad input.
    assert cli(live_server, key, "releases", "benchmark", str(release.pk)) == 1
    assert "only a proposed release waits for its endpoints" in capsys.readouterr().err


def test_benchmark_and_set_exit_codes(
    live_server: Any, keys: dict[str, str], prod: Any, candidate: Path, capsys: Any
) -> None:
    assert cli(live_server, keys["operator"], "submit", str(candidate), *ON_ENDPOINTS) == 0
    release = Release.objects.get(state="proposed")
    versions = ContractVersion.objects.count()
    capsys.readouterr()
    # A viewer may not start it: a refusal, as for a decision (1).
    assert cli(live_server, keys["viewer"], "releases", "benchmark", str(release.pk)) == 1
    assert "403" in capsys.readouterr().err
    # Bad input: no such release, no such endpoint (2).
    assert cli(live_server, keys["operator"], "releases", "benchmark", "999999") == 2
    assert cli(live_server, keys["operator"], "releases", "benchmark", str(release.pk), "--candidate",
               "nowhere") == 2  # fmt: skip
    assert "endpoints.candidate" in capsys.readouterr().err
    assert cli(live_server, keys["operator"], "endpoint", "set", ROUTE, "prod-eu") == 2
    assert "nothing to change" in capsys.readouterr().err
    assert cli(live_server, keys["operator"], "endpoint", "set", ROUTE, "prod-eu", "--expects",
               "release:999999", "--output", "json") == 2  # fmt: skip
    assert json.loads(capsys.readouterr().out)["errors"][0]["path"] == "expects"
    assert Endpoint.objects.get(name="prod-eu").expects == "active"
    # No server there: 3.
    with reserved_port() as port:
        assert main(["releases", "benchmark", str(release.pk), "--url", f"http://127.0.0.1:{port}"]) == 3
        assert main(["endpoint", "set", ROUTE, "prod-eu", "--expects", "active", "--url",
                     f"http://127.0.0.1:{port}"]) == 3  # fmt: skip
    assert Release.objects.get(pk=release.pk).state == "proposed"
    assert ContractVersion.objects.count() == versions
