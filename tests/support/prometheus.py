"""Debian's `prometheus` and `promtool` (apt-get install prometheus: 2.42 on Debian 12), for
the tests of the shipped alert rules and of a real scrape. Absent, those tests skip and say
so, except under `make test`, which installs the package and sets
SPECPACT_REQUIRE_PROMETHEUS=1 so that a missing binary fails instead."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

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
