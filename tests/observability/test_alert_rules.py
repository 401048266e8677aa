"""The shipped alert rules (deploy/prometheus/specpact-alerts.yml): valid for promtool,
passing their unit tests on recorded series, and naming only series /metrics exports."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.support.prometheus import RULES, RULES_TEST, binary, names_in, unexported


def exported_families() -> set[str]:
    response = Client(REMOTE_ADDR="127.0.0.1").get("/metrics")
    assert response.status_code == 200
    return {family.name for family in text_string_to_metric_families(response.content.decode())}


def test_promtool_passes_the_rules_on_recorded_series() -> None:
    promtool = binary("promtool")
    checked = subprocess.run(
        [promtool, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        [promtool, "test", "rules", RULES_TEST.name],
        cwd=RULES_TEST.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def test_every_rule_has_a_unit_test() -> None:
    alerts = {
        rule["alert"] for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]
    }
    tests = yaml.safe_load(RULES_TEST.read_text())["tests"]
    tested = {
        case["alertname"] for test in tests for case in test["alert_rule_test"] if case.get("exp_alerts")
    }
    assert alerts - tested == set()


@pytest.mark.django_db
def test_the_rules_name_only_exported_series() -> None:
    families = exported_families()
    exprs = [rule["expr"] for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    named = set().union(*(names_in(e) for e in exprs))
    assert named
    assert unexported(named, families) == set()
