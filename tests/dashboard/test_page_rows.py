"""The overview's and the fleet's table rows are made in Python (dashboard_app/rows): each
row equal, byte for byte, to what the templates they replaced made of the same row (held
here verbatim from those templates), hostile text escaped alike."""

# ruff: noqa: E501  # the former templates, verbatim

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.template import Context, Engine

from contracts_app.models import ContractVersion, Route
from dashboard_app.rows.fleet import fleet_rows
from dashboard_app.rows.overview import overview_rows
from dashboard_app.selectors.conformance import Conformance
from dashboard_app.selectors.overview import RouteRow, Speedup
from kernel.urls import url_maker

HOSTILE = "<b>\"x\" & 'y'</b>"

# The overview's row loop and the conformance cell it included, as they were.
OVERVIEW_ROWS = """{% for row, links in rows %}
  <tr>
    <td><a href="{{ links.route }}"><strong>{{ row.route.slug }}</strong></a><div class="muted">{{ row.description|truncatechars:90 }}</div></td>
    <td>{% if row.route.active_version %}<a href="{% url 'version-detail' row.route.slug row.route.active_version.number %}">v{{ row.route.active_version.number }}</a> <code>{{ row.method }}</code>
          {% if row.since %}<div class="muted">since <time datetime="{{ row.since.iso }}">{{ row.since.minute }} UTC</time></div>{% endif %}
        {% else %}<span class="muted">none active</span>{% endif %}</td>
    <td>{% for lane in row.lanes %}<span class="lane">{{ lane }}</span> {% empty %}<span class="muted">—</span>{% endfor %}
        {% if row.excluded %}<div class="muted">excluded: {{ row.excluded|join:", " }}</div>{% endif %}</td>
    <td>{% if row.verdict %}<a href="{{ links.gated }}"><span class="badge badge-{{ row.verdict }}">{{ row.verdict }}</span></a> <span class="muted">release #{{ row.gated_release_id }}</span>{% if row.verdict_is_history %} <span class="badge badge-{{ row.gated_release_state }}">{{ row.gated_release_state_words }}</span>{% endif %}{% else %}<span class="muted">not measured</span>{% endif %}</td>
    <td>{% for s in row.speedups %}<div><strong>{{ s.words }}</strong> <span class="muted">{{ s.lane }}, {{ s.metric }} at {{ s.level_words }}</span></div>{% empty %}<span class="muted">{% if row.route.active_version %}not measured for v{{ row.route.active_version.number }}{% else %}—{% endif %}</span>{% endfor %}
        {% if row.speedups %}<div class="muted">active now: <a href="{{ links.current }}">release #{{ row.current_release_id }}</a>{% if row.since %}, since <time datetime="{{ row.since.iso }}">{{ row.since.day }}</time>{% endif %}</div>{% endif %}
        {% if row.history_speedups %}<div class="muted history">{% if row.verdict_is_history %}history{% else %}candidate, not active{% endif %}: {% for s in row.history_speedups %}{{ s.words }} ({{ s.lane }}){% if not forloop.last %}, {% endif %}{% endfor %} in <a href="{{ links.gated }}">release #{{ row.gated_release_id }}</a>, {{ row.gated_release_state_words }}</div>{% endif %}</td>
    {% include "dashboard/_conformance_cell.html" with conformance=row.conformance route_url=links.route %}
    <td>{% if row.open_release_id %}<a href="{{ links.open }}">release #{{ row.open_release_id }}</a> <span class="badge badge-{{ row.open_release_state }}">{{ row.open_release_state_words }}</span>{% else %}<span class="muted">—</span>{% endif %}</td>
  </tr>
  {% endfor %}"""
CONFORMANCE_CELL = """{# The overview's Conformance cell: each live endpoint's state and coverage words (dashboard_app/selectors/conformance.py); `route_url`: the route's page. #}
<td class="conformance">{% for c in conformance %}<div><a href="{{ route_url }}#endpoints">{{ c.name }}</a> <span class="badge badge-{{ c.state }}">{{ c.state }}</span>{% if c.words %} <span class="muted">{{ c.words|breakable }}</span>{% endif %}</div>{% empty %}<span class="muted">no live endpoints</span>{% endfor %}</td>
"""
FLEET_ROWS = """{% for lane, row in table %}
  <tr><th scope="row">{{ lane }}</th>
    {% for cell in row %}<td>{% if cell %}<strong>{{ cell.speedup_words }}</strong> <span class="badge badge-{{ cell.gate_verdict }}">{{ cell.gate_verdict }}</span><div class="muted">{{ cell.metric }} at {{ cell.level }}, <a href="{{ cell.release_url }}">release #{{ cell.release_id }}</a>{% if cell.since %}, active since <time datetime="{{ cell.since.iso }}">{{ cell.since.day }}</time>{% endif %}</div>{% else %}<span class="muted">—</span>{% endif %}</td>{% endfor %}
  </tr>
  {% endfor %}"""


def _engine() -> Engine:
    templates = {
        "rows.html": OVERVIEW_ROWS,
        "fleet.html": FLEET_ROWS,
        "dashboard/_conformance_cell.html": CONFORMANCE_CELL,
    }
    return Engine(
        loaders=[("django.template.loaders.locmem.Loader", templates)], builtins=["kernel.templatetags.pages"]
    )


def _links(row: RouteRow) -> dict[str, str | None]:
    """What the view gave the template beside each row."""
    route_url, release_url = url_maker("route-detail"), url_maker("release-detail")

    def release(pk: int | None) -> str | None:
        return release_url(pk) if pk is not None else None

    return {
        "route": route_url(row.route.slug),
        "gated": release(row.gated_release_id),
        "current": release(row.current_release_id),
        "open": release(row.open_release_id),
    }


def _speedup(lane: str, estimate: float, **kwargs: Any) -> Speedup:
    kwargs = {"ci_low": None, "ci_high": None, **kwargs}
    return Speedup(
        lane=lane, metric="ttft_p50", level_kind="concurrency", level=1.0, estimate=estimate, **kwargs
    )


def _route(slug: str, *, number: int | None, description: str = "", since: datetime | None = None) -> Route:
    version = None
    if number is not None:
        document = {"description": description, "speculation": {"method": "eagle3"}}
        version = ContractVersion(number=number, document=document)
    return Route(slug=slug, description=HOSTILE, active_version=version, active_since=since)


def rows() -> list[RouteRow]:
    since = datetime(2026, 3, 1, 23, 45, 6, 789, tzinfo=UTC)
    long = "é" * 40 + "e\u0301" * 60 + HOSTILE  # combining accents are not counted by truncatechars
    return [
        RouteRow(_route("none-active", number=None), None, [], [], None, None),
        RouteRow(
            _route("measured", number=3, description=HOSTILE, since=since),
            HOSTILE,
            ["chat", HOSTILE],
            [HOSTILE, "agent"],
            gated_release_id=12,
            verdict="pass",
            gated_release_state="active",
            speedups=[
                _speedup("chat", 1.5, ci_low=1.2, ci_high=1.8, n_baseline=4, n_candidate=4),
                _speedup(HOSTILE, 0.9),
            ],
            open_release_id=14,
            open_release_state="awaiting_review",
            current_release_id=12,
            current_verdict="pass",
            conformance=[
                Conformance("prod-eu", "conforms", "3 of 4 fields verified; a.b.c=1 " + "f" * 40),
                Conformance(HOSTILE, "drifted", ""),
            ],
        ),
        RouteRow(
            _route("history", number=7, description=long),
            "ngram",
            ["summarization"],
            [],
            gated_release_id=20,
            verdict="fail",
            gated_release_state="rolled_back",
            history_speedups=[_speedup("chat", 1.1), _speedup("agent", 2.0)],
        ),
        RouteRow(
            _route("candidate", number=2, description="short", since=since),
            "eagle3",
            ["chat"],
            [],
            gated_release_id=30,
            verdict="marginal",
            gated_release_state="awaiting_review",
            history_speedups=[_speedup("chat", 1.3)],
            open_release_id=30,
            open_release_state="awaiting_review",
        ),
        RouteRow(_route("no-words", number=1, description="  "), "eagle3", [], [], None, None),
    ]


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_overview_rows_are_what_the_template_made(zone: str) -> None:
    from django.utils import timezone

    with timezone.override(zone):
        shown = rows()
        expected = (
            _engine().get_template("rows.html").render(Context({"rows": [(r, _links(r)) for r in shown]}))
        )
        assert str(overview_rows(rows())) == expected


def test_fleet_rows_are_what_the_template_made() -> None:
    since = {"iso": "2026-03-01T23:45:06+00:00", "minute": "2026-03-01 23:45", "day": "2026-03-01"}
    cell = {
        "speedup_words": "1.50× [1.20, 1.80], n=4",
        "gate_verdict": "pass",
        "metric": "ttft_p50",
        "level": "concurrency 1",
        "release_url": "/releases/12/",
        "release_id": 12,
        "since": since,
    }
    hostile = {**cell, "speedup_words": HOSTILE, "metric": HOSTILE, "since": None, "gate_verdict": HOSTILE}
    table = [("chat", [cell, None, hostile]), (HOSTILE, [None, None, cell]), ("agent", [])]
    expected = _engine().get_template("fleet.html").render(Context({"table": table}))
    assert str(fleet_rows(table)) == expected
