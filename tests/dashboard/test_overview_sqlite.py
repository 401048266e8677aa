"""The routes overview and the fleet page on SQLite, the embedded default (`make demo`):
their rows read through the ORM there (PostgreSQL reads them as text,
`dashboard_app.selectors.overview._RELEASES_SQL`), the new index migrates, and the pages
show the gated, the active and the pending release. In a process of its own (the suite's
database is PostgreSQL): `migrate` on a new SQLite file, then the pages, in one
`manage.py shell`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sqlite_shell import sqlite_shell

pytestmark = pytest.mark.integration

SCRIPT = """
import json
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from django.db import connection
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()  # the test client's host allowed, as under pytest
from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.support.factories import example, make_user, make_version

proposer, approver = make_user("pat", "operator"), make_user("alice", "approver")
make_version("support-chat", example("support-chat-eagle3"))
release_approve(release=release_create(route="support-chat", candidate_version=1, actor=proposer),
                actor=approver, reason="first version")
make_version("contract-summaries", example())
open_ = release_create(route="contract-summaries", candidate_version=1, actor=proposer)
speedup = [{"lane": "chat", "metric": "ttft_p50", "level": 1, "estimate": 1.5, "ci_low": 1.2, "ci_high": 1.8}]
Release.objects.filter(pk=open_.pk).update(
    state="awaiting_review", gate_verdict="pass", gate_result={"speedup": speedup})
client = Client()
client.force_login(make_user("vera", "viewer"))
pages = {path: client.get(path) for path in ("/", "/fleet/", "/?verdict=pass", "/?pending=no")}
print(json.dumps({
    "vendor": connection.vendor,
    "status": {p: r.status_code for p, r in pages.items()},
    "bodies": {p: r.content.decode() for p, r in pages.items()},
    "open": open_.pk,
}))
"""


def test_the_overview_and_the_fleet_read_on_sqlite(tmp_path: Path) -> None:
    out = sqlite_shell(tmp_path, SCRIPT)
    assert out["vendor"] == "sqlite"
    assert set(out["status"].values()) == {200}
    overview, fleet = out["bodies"]["/"], out["bodies"]["/fleet/"]
    link = f'<a href="/releases/{out["open"]}/">release #{out["open"]}</a>'
    pending = f'{link} <span class="badge badge-awaiting_review">'
    assert pending in overview and '<span class="badge badge-pass">pass</span>' in overview
    assert "candidate, not active: 1.50× [1.20, 1.80] (chat)" in overview
    assert "<code>eagle3</code>" in overview and "not measured for v1" in overview
    assert "1.50× [1.20, 1.80] (chat)" in fleet and "support-chat" in fleet
    assert 'href="/routes/contract-summaries/"' in out["bodies"]["/?verdict=pass"]
    assert 'href="/routes/contract-summaries/"' not in out["bodies"]["/?pending=no"]
