"""The pipeline-facing CLI against a real server (pytest-django's live_server): --output
json, diff, releases list, cancel, progress while --wait, refusals exit 1, and a submit
that can't open a release uploads nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from contracts_app.models import ContractVersion
from releases_app.models import Release
from specpact.cli.main import main
from tests.support.factories import example, make_token, make_user, variant

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def keys(db: None) -> dict[str, str]:
    return {
        "operator": make_token(make_user("ci-operator", "operator"), "operator").key,
        "approver": make_token(make_user("ci-approver", "approver"), "approver").key,
        "viewer": make_token(make_user("ci-viewer", "viewer"), "viewer").key,
    }


def write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def cli(live_server: Any, key: str, *args: str) -> int:
    return main([*args, "--url", live_server.url, "--token", key])


def _json(capsys: Any) -> Any:
    return json.loads(capsys.readouterr().out)


def test_a_second_submit_while_a_release_is_open_uploads_nothing_and_exits_1(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    contract = write(tmp_path, example())
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    first = Release.objects.get()
    capsys.readouterr()
    write(tmp_path, variant(example(), description="Reworded while the first is open."))
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 1
    err = capsys.readouterr().err
    assert f"release {first.pk} open" in err and "nothing was uploaded" in err
    assert f"specpact cancel {first.pk}" in err
    assert ContractVersion.objects.count() == 1
    # `specpact cancel` withdraws it; the submit then goes through.
    assert cli(live_server, keys["operator"], "cancel", str(first.pk), "--reason", "superseded by v2") == 0
    assert Release.objects.get(pk=first.pk).state == "cancelled"
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    assert ContractVersion.objects.count() == 2


def test_refused_decisions_exit_1_not_2(live_server: Any, keys: dict[str, str], tmp_path: Path) -> None:
    assert cli(live_server, keys["operator"], "submit", str(write(tmp_path, example()))) == 0
    release = Release.objects.get()
    # The role (a viewer can't approve) and four eyes (the proposer can't) are refusals: 1.
    assert cli(live_server, keys["viewer"], "approve", str(release.pk), "--reason", "no") == 1
    assert cli(live_server, keys["operator"], "approve", str(release.pk), "--reason", "mine") == 1
    assert cli(live_server, keys["approver"], "approve", str(release.pk), "--reason", "ok") == 0
    # The state refuses a second decision: 1 as well; a release that doesn't exist is bad input: 2.
    assert cli(live_server, keys["approver"], "approve", str(release.pk), "--reason", "again") == 1
    assert cli(live_server, keys["approver"], "cancel", "999", "--reason", "none such") == 2


def test_a_release_that_needs_no_gate_says_so_once(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    contract = write(tmp_path, example())
    assert cli(live_server, keys["operator"], "submit", str(contract), "--wait", "--timeout", "30") == 0
    out = capsys.readouterr().out
    assert out.count("(gate: not needed)") == 1
    assert "none yet" not in out


def test_output_json_on_submit_status_diff_and_releases_list(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    contract = write(tmp_path, example())
    assert cli(live_server, keys["operator"], "submit", str(contract), "--output", "json") == 0
    submitted = _json(capsys)
    assert submitted["version"]["version"] == 1 and submitted["release"]["state"] == "awaiting_review"
    release_id = submitted["release"]["id"]
    assert (
        cli(live_server, keys["approver"], "approve", str(release_id), "--reason", "v1", "--output", "json")
        == 0
    )
    assert _json(capsys)["state"] == "active"
    write(tmp_path, variant(example(), **{"speculation.num_speculative_tokens": 3}))
    assert (
        cli(live_server, keys["operator"], "submit", str(contract), "--no-release", "--output", "json") == 0
    )
    assert _json(capsys)["version"]["version"] == 2

    assert cli(live_server, keys["viewer"], "diff", "contract-summaries", "1", "2", "--output", "json") == 0
    diff = _json(capsys)
    assert diff["requires_benchmark"] is True
    assert "speculation.num_speculative_tokens" in {c["path"] for c in diff["changes"]}
    assert cli(live_server, keys["viewer"], "diff", "contract-summaries", "1", "2") == 0
    old = example()["speculation"]["num_speculative_tokens"]
    assert f"speculation.num_speculative_tokens: {old} → 3" in capsys.readouterr().out

    assert cli(live_server, keys["viewer"], "releases", "list", "--output", "json") == 0
    assert [(r["id"], r["state"]) for r in _json(capsys)] == [(release_id, "active")]
    assert cli(live_server, keys["viewer"], "releases", "list", "--state", "cancelled") == 0
    assert capsys.readouterr().out.strip() == "no releases"
    assert cli(live_server, keys["viewer"], "status", str(release_id), "--output", "json") == 0
    assert _json(capsys)["id"] == release_id


def test_errors_in_json_mode_are_json_too(live_server: Any, keys: dict[str, str], capsys: Any) -> None:
    assert cli(live_server, keys["viewer"], "status", "999", "--output", "json") == 2
    error = _json(capsys)
    assert error["status"] == 404 and error["exit_code"] == 2


def test_offline_commands_take_output_json(tmp_path: Path, capsys: Any) -> None:
    contract = write(tmp_path, example())
    assert main(["validate", str(contract), "--output", "json"]) == 0
    assert _json(capsys)["valid"] is True
    assert main(["render", str(contract), "--output", "json"]) == 0
    assert "argv" in _json(capsys)
    command = [
        "vllm",
        "serve",
        "Qwen/Qwen3-8B",
        "--speculative-config",
        '{"method": "ngram", "num_speculative_tokens": 4}',
    ]
    assert main(["import", "--engine", "vllm", "--output", "json", "--", *command]) == 0
    assert _json(capsys)["document"]["speculation"]["method"] == "ngram"


def test_wait_prints_progress_lines_while_benchmarking(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    contract = write(tmp_path, example())
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    assert cli(live_server, keys["approver"], "approve", str(Release.objects.get().pk), "--reason", "v1") == 0
    write(tmp_path, variant(example(), **{"speculation.num_speculative_tokens": 3}))
    capsys.readouterr()
    # No worker: the release stays benchmarking; the wait says so on stderr, then times out (3).
    assert cli(live_server, keys["operator"], "submit", str(contract), "--wait", "--timeout", "2") == 3
    captured = capsys.readouterr()
    pending = Release.objects.latest("pk")
    assert f"release {pending.pk}: benchmarking, run " in captured.err
    assert "queued" in captured.err
    assert "still benchmarking after 2 s" in captured.err
