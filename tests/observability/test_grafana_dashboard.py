"""The Grafana dashboard (deploy/grafana/specpact.json): loads, every query names only
series /metrics exports, and every query is PromQL that Prometheus parses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.observability.test_alert_rules import exported_families
from tests.support.prometheus import DASHBOARD, binary, names_in, unexported


def _targets() -> list[dict[str, Any]]:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "specpact"
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    targets = [t for p in panels for t in p["targets"]]
    assert all(p["datasource"]["type"] == "prometheus" for p in panels)
    return targets


@pytest.mark.django_db
def test_every_query_names_a_series_that_metrics_exports() -> None:
    families = exported_families()
    for target in _targets():
        named = names_in(target["expr"])
        assert named, target
        assert unexported(named, families) == set(), target["expr"]


def test_every_query_parses_as_promql(tmp_path: Path) -> None:
    promtool = binary("promtool")
    # promtool has no query linter offline; a recording rule per query makes
    # `check rules` parse each one.
    rules = [{"record": f"dashboard:query_{i}", "expr": t["expr"]} for i, t in enumerate(_targets())]
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = subprocess.run(
        [promtool, "check", "rules", str(path)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
