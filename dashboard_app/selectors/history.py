"""A route's version history as its page shows it: every version's number (the diff picker
offers them all), and one page of rows, newest first.

Rows are plain tuples read in one query without the contract documents: the page draws
five fields of each version, and the documents' JSON decoding and model instances were
most of the history's cost (issue 26, point 1: 64 versions on the small scale's busiest
route, 126 on the full one, every one a row, a "Propose" form and two picker options)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator

from contracts_app.models import ContractVersion, Route
from contracts_app.selectors import speculation_method_sql

# Versions per page of the history (and of its "Propose vN" forms).
HISTORY_PAGE_SIZE = 10


@dataclass(frozen=True)
class VersionRow:
    pk: int
    number: int
    digest: str
    created_at: datetime
    username: str | None
    # ContractVersion.speculation_method, read in SQL: the document's speculation.method.
    speculation_method: str


@dataclass(frozen=True)
class History:
    # Every version's number, newest first, as the picker's text: 250 integers through the
    # template's number localisation were a tenth of the page's template time.
    numbers: list[str]
    page: Page[VersionRow]
    # Every version, newest first (the checklist's Q6 looks a `version:N` target up here).
    rows: list[VersionRow]


def version_history(route: Route, page_number: str | int | None) -> History:
    """One query for any number of versions; `page_number` as the request gives it (a
    missing or bad one is the first page, one past the end the last, as `get_page` does)."""
    rows = [
        VersionRow(*values)
        for values in ContractVersion.objects.filter(route=route)
        .annotate(method=speculation_method_sql())
        .order_by("-number")
        .values_list("pk", "number", "digest", "created_at", "created_by__username", "method")
    ]
    page = Paginator(rows, HISTORY_PAGE_SIZE).get_page(page_number)
    return History([str(row.number) for row in rows], page, rows)
