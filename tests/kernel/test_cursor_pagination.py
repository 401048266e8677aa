"""Cursor pages of the audit log and the run list hold still while rows are inserted."""

from __future__ import annotations

from typing import Any

import pytest

from audit_app.services import audit_record
from benchmarks_app.models import Run
from benchmarks_app.services import run_create
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


def _event(n: int) -> int:
    return audit_record(actor=None, action="test.event", obj_type="thing", obj_id=n).pk


def _walk(client: Any, url: str, between_pages: Any) -> list[int]:
    seen: list[int] = []
    while url:
        page = client.get(url)
        assert page.status_code == 200, page.content
        body = page.json()
        assert set(body) == {"next", "previous", "results"}
        seen += [row["id"] for row in body["results"]]
        between_pages()
        url = body["next"]
    return seen


def test_the_audit_log_walks_every_event_once_while_new_ones_arrive(viewer: Any) -> None:
    before = [_event(n) for n in range(7)]
    inserted: list[int] = []
    client = Caller("v", user=viewer).client()
    seen = _walk(
        client, "/api/v1/audit/?action=test&limit=3", lambda: inserted.append(_event(100 + len(inserted)))
    )
    # Newest first, every event that existed when the walk began exactly once, none twice.
    assert seen == sorted(before, reverse=True)
    assert len(inserted) == 3  # rows arrived between every page (limit/offset would repeat rows)


def test_the_run_list_walks_every_run_once_while_new_ones_arrive(versions: Any, viewer: Any) -> None:
    baseline, candidate = versions

    def new_run() -> int:
        return run_create(
            route=baseline.route, baseline=baseline, candidate=candidate, lane="extraction", actor=None
        ).pk

    before = [new_run() for _ in range(5)]
    client = Caller("v", user=viewer).client()
    seen = _walk(client, "/api/v1/runs/?limit=2", new_run)
    assert seen == sorted(before, reverse=True)
    assert Run.objects.count() == 5 + 3


def test_a_cursor_the_server_never_gave_is_a_400_naming_it(viewer: Any) -> None:
    answer = Caller("v", user=viewer).client().get("/api/v1/audit/?cursor=zzz")
    assert answer.status_code == 400
    assert [e["path"] for e in answer.json()["errors"]] == ["cursor"]
