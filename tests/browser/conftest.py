"""Playwright (sync API) driving Debian's chromium against pytest-django's live server.

Playwright runs an asyncio loop in this thread, so Django's ORM would refuse to run
from the test body while the browser is open ("async context"); the tests touch the
database through the real services between browser steps, which is safe here (one
thread, no concurrent use of the connection), so the check is switched off for them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connections

from tests.support.advice import SERVERS as ADVICE_SERVERS
from tests.support.benchmarked import SERVERS
from tests.support.browser import Shots

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "browser"


@pytest.fixture(scope="session", autouse=True)
def _stop_engine_servers() -> Iterator[None]:
    yield
    SERVERS.stop()
    ADVICE_SERVERS.emulators.stop()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed: run `make chromium` (apt-get install -y chromium)")
    return path


@pytest.fixture
def browser(chromium_path: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            # While Playwright's loop runs, Django keeps this thread's connections apart
            # from its usual ones; close them here, or the test database can't be dropped.
            connections.close_all()
            browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, timezone_id="Europe/Berlin")
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    yield page
    context.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    folder = ARTIFACTS / request.node.name
    if folder.exists():
        shutil.rmtree(folder)
    os.makedirs(folder, exist_ok=True)
    return Shots(folder)
