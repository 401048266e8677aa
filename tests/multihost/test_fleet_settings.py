"""The settings a fleet needs (docs/topology.md), read from the environment as a process
starts: a Sentinel broker's master group, the beat lease, one message reserved per
control-plane worker process. A value that can't work stops the start, naming it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks_app.broker import worker_transport_options

REPO = Path(__file__).resolve().parents[2]
READ = (
    "import json, specpact.settings as s; print(json.dumps({'options': s.CELERY_BROKER_TRANSPORT_OPTIONS,"
    " 'scheduler': s.CELERY_BEAT_SCHEDULER, 'prefetch': s.CELERY_WORKER_PREFETCH_MULTIPLIER}))"
)
SENTINELS = "sentinel://10.0.0.1:26379;sentinel://10.0.0.2:26379;sentinel://10.0.0.3:26379"


def _settings(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "WORKER_BROKER_URL")}
    return subprocess.run(
        [sys.executable, "-c", READ],
        cwd=REPO,
        env={**base, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_sentinel_broker_carries_its_master_group_in_the_transport_options() -> None:
    done = _settings(CELERY_BROKER_URL=SENTINELS, BROKER_SENTINEL_MASTER="specpact")
    assert done.returncode == 0, done.stderr
    options = json.loads(done.stdout)["options"]
    assert options["master_name"] == "specpact" and options["visibility_timeout"] > 0


@pytest.mark.parametrize("variable", ["CELERY_BROKER_URL", "WORKER_BROKER_URL"])
def test_a_sentinel_broker_without_its_master_group_stops_the_start(variable: str) -> None:
    done = _settings(**{variable: SENTINELS})
    assert done.returncode != 0 and "BROKER_SENTINEL_MASTER" in done.stderr


def test_a_beat_lease_too_short_to_renew_stops_the_start() -> None:
    done = _settings(BEAT_LEASE_S="1")
    assert done.returncode != 0 and "BEAT_LEASE_S" in done.stderr


def test_beat_runs_the_single_beat_scheduler_and_a_worker_reserves_one_message() -> None:
    done = _settings()
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["scheduler"] == "kernel.beat:SingleBeatScheduler" and read["prefetch"] == 1


def test_workers_on_a_sentinel_broker_of_their_own_are_told_its_master_group(settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://10.0.0.9:6379/0"
    settings.WORKER_BROKER_URL = SENTINELS
    settings.BROKER_SENTINEL_MASTER = "specpact"
    assert worker_transport_options()["master_name"] == "specpact"
    settings.WORKER_BROKER_URL = "redis://10.0.0.8:6379/0"
    assert "master_name" not in worker_transport_options()
