"""Debian's `prometheus` and `promtool` (apt-get install prometheus: 2.42 on Debian 12), for
the tests of the shipped alert rules and of a real scrape. Absent, those tests skip and say
so, except under `make test`, which installs the package and sets
SPECPACT_REQUIRE_PROMETHEUS=1 so that a missing binary fails instead."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.support.launcher import reserved_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "specpact-alerts.yml"
RULES_TEST = ROOT / "deploy" / "prometheus" / "specpact-alerts.test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "specpact.json"

# A series name in a PromQL expression: SpecPact's all start so.
SERIES_NAME = re.compile(r"\bspecpact_[a-z0-9_]+")
# What the exposition adds to a histogram family's name.
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def binary(name: str) -> str:
    """The path of `name`, or skip (fail under `make test`) when it is not installed."""
    found = shutil.which(name)
    if found is None:
        why = f"{name} is absent: apt-get install prometheus (make prometheus)"
        if os.environ.get("SPECPACT_REQUIRE_PROMETHEUS") == "1":
            pytest.fail(why + "; make test requires it")
        pytest.skip(why)
    return found


def names_in(expr: str) -> set[str]:
    return set(SERIES_NAME.findall(expr))


def unexported(names: set[str], families: set[str]) -> set[str]:
    """The names that are neither an exported family nor a histogram family's sample."""
    known = set(families) | {f + s for f in families for s in HISTOGRAM_SUFFIXES}
    return names - known


@dataclass
class PrometheusServer:
    base_url: str

    def query(self, promql: str) -> list[dict[str, Any]]:
        """An instant query's result vector (HTTP API: /api/v1/query)."""
        answer = httpx.get(f"{self.base_url}/api/v1/query", params={"query": promql}, timeout=10).json()
        assert answer["status"] == "success", answer
        return list(answer["data"]["result"])

    def wait_for(self, promql: str, timeout_s: float = 60.0) -> list[dict[str, Any]]:
        """The query's result once it is not empty, else fail naming the target's health."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            result = self.query(promql)
            if result:
                return result
            time.sleep(0.5)
        targets = httpx.get(f"{self.base_url}/api/v1/targets", timeout=10).json()
        raise AssertionError(f"{promql} stayed empty for {timeout_s} s; targets: {targets}")


@contextmanager
def prometheus_scraping(target: str, token: str | None, tmp: Path) -> Iterator[PrometheusServer]:
    """Debian's `prometheus` on a loopback port, scraping `target` (host:port) every second,
    sending `Authorization: Token <token>` when one is given. Configuration keys from
    https://prometheus.io/docs/prometheus/2.42/configuration/configuration/ (scrape_config,
    `authorization` with `type`); flags from `prometheus --help` of 2.42."""
    exe = binary("prometheus")
    job: dict[str, Any] = {
        "job_name": "specpact",
        "scrape_interval": "1s",
        "scrape_timeout": "1s",
        "metrics_path": "/metrics",
        "static_configs": [{"targets": [target]}],
    }
    if token:
        (tmp / "token").write_text(token)
        job["authorization"] = {"type": "Token", "credentials_file": str(tmp / "token")}
    config = tmp / "prometheus.yml"
    config.write_text(yaml.safe_dump({"global": {"evaluation_interval": "1s"}, "scrape_configs": [job]}))
    # Held until Prometheus (Go sets SO_REUSEADDR) binds over it (tests/support/launcher.py).
    with reserved_port() as port, (tmp / "prometheus.log").open("w") as log:
        argv = [exe, f"--config.file={config}", f"--storage.tsdb.path={tmp / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}"]  # fmt: skip
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        server = PrometheusServer(f"http://127.0.0.1:{port}")
        try:
            wait_for(lambda: _ready(process, server, tmp), 60, "prometheus to be ready")
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _ready(process: subprocess.Popen[bytes], server: PrometheusServer, tmp: Path) -> bool:
    if process.poll() is not None:
        raise AssertionError(f"prometheus exited: {(tmp / 'prometheus.log').read_text()[-2000:]}")
    try:
        return httpx.get(f"{server.base_url}/-/ready", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
