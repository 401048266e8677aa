"""The app list (specpact/apps_list.py) is the one place apps are named: what can't be derived
from it (import-linter's TOML, the Makefile as make expands it) is held equal to it here."""

from __future__ import annotations

import subprocess
import tomllib

from setuptools import find_namespace_packages

from specpact.apps_list import PROJECT_APPS
from tests.support.launcher import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
IMPORTLINTER = PYPROJECT["tool"]["importlinter"]


def test_every_app_package_in_the_checkout_is_in_the_list():
    packages = {p.parent.name for p in REPO.glob("*/apps.py")}
    assert packages == set(PROJECT_APPS)


def test_installed_apps_hold_the_list_in_its_order(settings):
    ours = [app for app in settings.INSTALLED_APPS if app.split(".")[0] in PROJECT_APPS]
    assert ours == list(PROJECT_APPS)


def test_import_linter_checks_every_app_and_the_worker():
    roots = IMPORTLINTER["root_packages"]
    assert len(roots) == len(set(roots))
    assert set(roots) == {*PROJECT_APPS, "worker"}


def test_the_worker_may_import_no_app():
    (contract,) = [c for c in IMPORTLINTER["contracts"] if c.get("source_modules") == ["worker"]]
    assert set(PROJECT_APPS) <= set(contract["forbidden_modules"])


def test_no_app_may_load_the_workers_runtime():
    (contract,) = [c for c in IMPORTLINTER["contracts"] if "torch" in c.get("forbidden_modules", [])]
    assert set(contract["source_modules"]) == set(PROJECT_APPS)


def test_packaging_finds_every_app_and_the_worker_and_nothing_else():
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    top = {name.split(".")[0] for name in find_namespace_packages(where=str(REPO), include=include)}
    assert top == {*PROJECT_APPS, "worker"}


def test_the_makefile_typechecks_every_app():
    dry = subprocess.run(
        ["make", "-n", "typecheck"], cwd=REPO, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    (mypy,) = [line.split() for line in dry.splitlines() if "/mypy " in line]
    assert set(PROJECT_APPS) | {"worker"} <= set(mypy)
