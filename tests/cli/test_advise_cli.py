"""`specpact advise` against a real server (live_server): asks for an advice run, waits for
it while the worker is played (tests/support/advice.py: the real harness against
emulators), and says the recommendation per lane in words; bad input is exit 2."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from django.db import connection

from advice_app.models import AdviceRun
from specpact.cli.advise import parse_candidate
from specpact.cli.client import ApiError
from specpact.cli.main import main
from tests.support.advice import LANE, OPTIONS, active_route, play, queued
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db(transaction=True)
ROUTE = "contract-summaries"


@pytest.fixture
def key(proposer: Any, approver: Any, operator: Any) -> str:
    active_route(proposer=proposer, approver=approver)
    return make_token(operator, "operator").key


def _cli(live_server: Any, key: str, *args: str) -> int:
    return main(["advise", ROUTE, *args, "--url", live_server.url, "--token", key])


def _play_until_finished(stop: threading.Event) -> None:
    try:
        while not stop.is_set():
            advice = AdviceRun.objects.first()
            if advice is not None and advice.is_final:
                return
            for run in queued(advice) if advice is not None else []:
                play(run)
            time.sleep(0.2)
    finally:
        connection.close()


def test_advise_waits_and_says_the_recommendation(live_server: Any, key: str, capsys: Any) -> None:
    stop = threading.Event()
    worker = threading.Thread(target=_play_until_finished, args=(stop,))
    worker.start()
    try:
        code = _cli(
            live_server, key, "--lane", LANE, "--budget", "2000", "--candidate", "ngram:4", "--candidate",
            "ngram:2", "--seed", "3", "--looks", str(OPTIONS["looks"]), "--n-start", str(OPTIONS["n_start"]),
            "--wait", "--timeout", "120",
        )  # fmt: skip
    finally:
        stop.set()
        worker.join(60)
    out, err = capsys.readouterr()
    advice = AdviceRun.objects.get()
    assert code == 0, (out, err)
    assert advice.state == "finished" and advice.options == {"looks": 2, "n_start": 8}
    assert out.startswith(f"advice {advice.pk} on {ROUTE} (version 1): finished")
    assert advice.recommendations[LANE]["summary"] in out
    assert "value: " in out and "spent " in out
    assert f"advice {advice.pk}: measuring" in err
    assert _cli(live_server, key, "--lane", LANE, "--budget", "2000", "--candidate", "ngram:4",
                "--output", "json") == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["state"] == "measuring"


def test_bad_input_is_exit_2_with_the_servers_words(live_server: Any, key: str, capsys: Any) -> None:
    assert _cli(live_server, key, "--lane", "chat", "--budget", "2000", "--candidate", "ngram:4") == 2
    assert "lanes[0]: 'chat' is not in the active version's measurement.workloads" in capsys.readouterr().err
    assert _cli(live_server, key, "--lane", LANE, "--budget", "2000", "--candidate", "ngram") == 2
    assert "write METHOD:TOKENS" in capsys.readouterr().err
    # The active version runs no speculation: nothing to try by default.
    assert _cli(live_server, key, "--lane", LANE, "--budget", "2000") == 2
    assert "say what to try with --candidate" in capsys.readouterr().err
    assert not AdviceRun.objects.exists()


@pytest.mark.parametrize("text", ["ngram", "ngram:0", ":4", "ngram:x", "ngram:-1"])
def test_a_candidate_is_method_colon_tokens(text: str) -> None:
    with pytest.raises(ApiError):
        parse_candidate(text)
    assert parse_candidate("eagle3:5") == {"method": "eagle3", "tokens": 5}
