"""The CLI's server commands against a real server (pytest-django's live_server):
submit, status, wait, approve and rollback, with the exit codes pipelines branch on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from contracts_app.models import Route
from releases_app.models import Release
from specpact.cli.main import main
from tests.support.factories import example, make_token, make_user, variant

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def keys(db: None) -> dict[str, str]:
    operator = make_user("ci-operator", "operator")
    approver = make_user("ci-approver", "approver")
    return {
        "operator": make_token(operator, "operator").key,
        "approver": make_token(approver, "approver").key,
    }


def write(tmp_path: Path, doc: dict[str, Any], name: str = "contract.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def cli(live_server: Any, key: str, *args: str) -> int:
    return main([*args, "--url", live_server.url, "--token", key])


def test_submit_wait_approve_rollback(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    contract = write(tmp_path, example())
    # A route's first release needs no benchmark: it waits for review, which `wait` reports as success.
    assert cli(live_server, keys["operator"], "submit", str(contract), "--wait", "--timeout", "30") == 0
    out = capsys.readouterr().out
    assert "uploaded version 1" in out
    release = Release.objects.get()
    assert release.state == "awaiting_review"

    assert cli(live_server, keys["operator"], "status", str(release.pk)) == 0
    # Four eyes: the proposer's token cannot approve its own release: refused, exit 1 (DESIGN §8).
    assert cli(live_server, keys["operator"], "approve", str(release.pk), "--reason", "looks right") == 1
    assert cli(live_server, keys["approver"], "approve", str(release.pk), "--reason", "first version") == 0
    assert Route.objects.get(slug="contract-summaries").active_version.number == 1

    # A cosmetic change goes straight to review too; approve it, then roll back.
    write(tmp_path, variant(example(), description="Summaries, reworded."))
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    second = Release.objects.latest("pk")
    assert cli(live_server, keys["approver"], "approve", str(second.pk), "--reason", "wording only") == 0
    assert Route.objects.get(slug="contract-summaries").active_version.number == 2
    assert (
        cli(live_server, keys["approver"], "rollback", "contract-summaries", "--reason", "wrong wording") == 0
    )
    assert Route.objects.get(slug="contract-summaries").active_version.number == 1


def test_submit_of_an_invalid_file_exits_2_without_calling_the_server(
    keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("route: [unclosed\n", encoding="utf-8")
    assert main(["submit", str(path), "--url", "http://127.0.0.1:9", "--token", keys["operator"]]) == 2


def test_invalid_contract_rejected_by_the_server_exits_2_with_paths(
    live_server: Any, keys: dict[str, str], tmp_path: Path, capsys: Any
) -> None:
    doc = variant(example(), **{"speculation.params": {"prompt_lookup_min": 9, "prompt_lookup_max": 2}})
    assert cli(live_server, keys["operator"], "submit", str(write(tmp_path, doc))) == 2
    assert "speculation.params" in capsys.readouterr().err


def test_unreachable_server_exits_3(keys: dict[str, str], tmp_path: Path) -> None:
    assert main(["status", "1", "--url", "http://127.0.0.1:9", "--token", keys["operator"]]) == 3


def test_wait_times_out_with_exit_3_while_benchmarking(
    live_server: Any, keys: dict[str, str], tmp_path: Path
) -> None:
    contract = write(tmp_path, example())
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    first = Release.objects.get()
    assert cli(live_server, keys["approver"], "approve", str(first.pk), "--reason", "first") == 0
    # A route-identity change needs the benchmark gate: with no worker it stays pending.
    write(tmp_path, variant(example(), **{"speculation.num_speculative_tokens": 3}))
    assert cli(live_server, keys["operator"], "submit", str(contract)) == 0
    pending = Release.objects.latest("pk")
    assert pending.state == "benchmarking"
    assert cli(live_server, keys["operator"], "wait", str(pending.pk), "--timeout", "1") == 3
