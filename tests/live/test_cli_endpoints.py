"""`specpact endpoint add|list|probe` against a real server (live_server) and a
vLLM-shaped engine emulator; the probe's exit code says conforms / drifted / unknown."""

from __future__ import annotations

import json
from typing import Any

import pytest

from specpact.cli.main import main
from tests.live.conftest import vllm_claim
from tests.support.factories import example, make_token, make_user, make_version
from tests.support.launcher import reserved_port
from tests.support.releases import activate

pytestmark = pytest.mark.django_db(transaction=True)
DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def test_add_list_probe(live_server: Any, emulator: Any, capsys: Any) -> None:
    operator, approver = make_user("ci-operator", "operator"), make_user("ci-approver", "approver")
    activate(make_version("contract-summaries", example()), operator, approver)
    key = make_token(operator, "operator").key
    good, drifted = emulator(*vllm_claim(), env=DEV), emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)

    def cli(*args: str) -> int:
        return main(["endpoint", *args, "--url", live_server.url, "--token", key])

    assert cli("add", "contract-summaries", "prod-eu", "--base-url", good.base_url, "--engine", "vllm") == 0
    assert cli("add", "contract-summaries", "canary", "--base-url", drifted.base_url, "--engine", "vllm") == 0
    assert cli("add", "contract-summaries", "meta", "--base-url", "http://169.254.169.254/", "--engine",
               "vllm") == 2  # fmt: skip
    assert "link-local, metadata" in capsys.readouterr().err
    assert cli("probe", "contract-summaries", "prod-eu") == 0
    assert cli("probe", "contract-summaries", "canary") == 1
    out = capsys.readouterr().out
    assert "canary: drifted" in out and "speculation.num_speculative_tokens 3 ≠ 5" in out
    with reserved_port() as port:
        assert cli("add", "contract-summaries", "gone", "--base-url", f"http://127.0.0.1:{port}",
                   "--engine", "vllm") == 0  # fmt: skip
        assert cli("probe", "contract-summaries", "gone") == 3
    assert cli("list", "contract-summaries") == 0
    listing = capsys.readouterr().out
    assert "prod-eu" in listing and "conforms" in listing and "drifted" in listing
    # What a pipeline reads: one JSON document on stdout with `--output json`, the same exit codes.
    assert cli("list", "contract-summaries", "--output", "json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert {e["name"]: e["state"] for e in listed} == {
        "prod-eu": "conforms",
        "canary": "drifted",
        "gone": "unknown",
    }
    assert cli("probe", "contract-summaries", "canary", "--output", "json") == 1
    probe = json.loads(capsys.readouterr().out)
    assert (
        probe["state"] == "drifted"
        and probe["differences"][0]["path"] == "speculation.num_speculative_tokens"
    )


@pytest.mark.integration
def test_probe_follows_a_202_until_the_worker_has_probed(
    live_server: Any, emulator: Any, capsys: Any, settings: Any, control_plane: Any
) -> None:
    settings.ENDPOINT_PROBE_WAIT_S = 0  # every ask is a 202: the worker probes after
    operator, approver = make_user("ci-operator", "operator"), make_user("ci-approver", "approver")
    activate(make_version("contract-summaries", example()), operator, approver)
    key = make_token(operator, "operator").key
    good = emulator(*vllm_claim(), env=DEV)

    def cli(*args: str) -> int:
        return main(["endpoint", *args, "--url", live_server.url, "--token", key])

    assert cli("add", "contract-summaries", "prod-eu", "--base-url", good.base_url, "--engine", "vllm") == 0
    assert cli("probe", "contract-summaries", "prod-eu") == 0
    assert "prod-eu: conforms" in capsys.readouterr().out
