"""A pipeline submits a vLLM release while only a CPU worker is online: the release says
why within seconds of its creation, and `specpact submit --wait` ends promptly (exit 1,
the release failed with that reason) once RUN_WORKER_WAIT_MAX_S has passed, instead of
waiting out its own timeout."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection
from django.test import override_settings

from benchmarks_app.models import Run
from benchmarks_app.services.sweep import runs_sweep
from releases_app.models import Release
from specpact.cli.main import main
from tests.support.benchmarked import NO_BROKER, active_route, candidate_document
from tests.support.factories import make_token
from tests.support.workers import register

pytestmark = pytest.mark.django_db(transaction=True)


class Sweeper(threading.Thread):
    """Beat's periodic sweep, every few tenths of a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            while not self.stop.wait(0.3):
                runs_sweep()
        finally:
            connection.close()


@override_settings(RUN_WORKER_WAIT_MAX_S=3, CELERY_BROKER_URL=NO_BROKER)
def test_submit_wait_of_a_vllm_release_with_only_a_cpu_worker_exits_promptly_with_the_reason(
    live_server: Any, proposer: Any, approver: Any, tmp_path: Path, capsys: Any
) -> None:
    active_route(proposer=proposer, approver=approver)
    register("cpu-demo")
    path = tmp_path / "candidate.yaml"
    doc = candidate_document()
    doc["description"] = "n-gram lookup, from the pipeline"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    key = make_token(proposer, "operator").key

    sweeper = Sweeper()
    sweeper.start()
    started = time.monotonic()
    try:
        code = main(
            ["submit", str(path), "--wait", "--timeout", "120", "--url", live_server.url, "--token", key]
        )
    finally:
        sweeper.stop.set()
        sweeper.join(5)
    elapsed = time.monotonic() - started

    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert elapsed < 30, f"submit --wait took {elapsed:.0f} s"
    # The first progress line already says why, and the final lines repeat it.
    first_progress = next(line for line in err.splitlines() if "run " in line)
    assert "waiting for a worker:" in first_progress and "launches vllm" in first_progress, err
    assert "no worker could serve it" in out, out
    release = Release.objects.latest("pk")
    assert release.state == "failed"
    assert "no worker could serve it" in release.failure_reason
    assert "launches vllm" in release.failure_reason and "does not consume pool.gpu" in release.failure_reason
    # From its creation each run said why (its history is the record): queued, then waiting.
    for run in Run.objects.filter(release=release):
        events = [h["event"] for h in run.history]
        assert events == ["queued", "waiting for a worker", "failed"], events
        assert "cpu-demo" in run.history[1]["detail"]
