"""The route page's releases and version-history rows made in Python
(dashboard_app/views/route_rows.py) are what the template's loops made of the same rows:
markup, escaping, links, times in the current zone, the active marker, the empty cells."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.template import Context, Template
from django.utils import timezone

from contracts_app.models import ContractVersion
from dashboard_app.selectors.history import VersionRow
from dashboard_app.views.route_rows import release_rows, version_rows
from releases_app.models import Release

# The loops as route_detail.html had them.
RELEASES = Template(
    """{% for r in releases %}
  <tr>
    <td><a href="{% url 'release-detail' r.pk %}">#{{ r.pk }}</a></td>
    <td>{% if r.baseline_version %}v{{ r.baseline_version.number }}{% else %}—{% endif %}"""
    """ → v{{ r.candidate_version.number }}</td>
    <td><span class="badge badge-{{ r.state }}">{{ r.get_state_display }}</span></td>
    <td>{% if r.gate_verdict %}<span class="badge badge-{{ r.gate_verdict }}">{{ r.gate_verdict }}</span>"""
    """{% else %}<span class="muted">—</span>{% endif %}</td>
    <td><time datetime="{{ r.created_at|date:'c' }}">{{ r.created_at|date:'Y-m-d H:i' }} UTC</time></td>
  </tr>
  {% endfor %}"""
)
VERSIONS = Template(
    """{% for v in versions %}
  <tr>
    <td><a href="{% url 'version-detail' route.slug v.number %}">v{{ v.number }}</a>"""
    """{% if active and v.pk == active.pk %} <span class="badge badge-active">active</span>{% endif %}</td>
    <td><code>{{ v.speculation_method }}</code></td>
    <td class="mono" title="{{ v.digest }}">{{ v.digest|truncatechars:23 }}</td>
    <td><time datetime="{{ v.created_at|date:'c' }}">{{ v.created_at|date:'Y-m-d H:i' }} UTC</time></td>
    <td>{{ v.username|default:"—" }}</td>
  </tr>
  {% endfor %}"""
)

MOMENT = datetime(2026, 3, 1, 23, 45, 6, 789, tzinfo=UTC)


def _release(pk: int, state: str, verdict: str | None, baseline: int | None, candidate: int) -> Release:
    return Release(
        pk=pk,
        state=state,
        gate_verdict=verdict,
        created_at=MOMENT,
        baseline_version=ContractVersion(number=baseline) if baseline else None,
        candidate_version=ContractVersion(number=candidate),
    )


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_release_rows_are_what_the_template_made(zone: str) -> None:
    releases = [
        _release(12345, "active", "pass", 3, 4),
        _release(7, "rolled_back", "marginal", 1, 2),
        _release(1, "benchmarking", None, None, 1),
    ]
    with timezone.override(zone):
        assert release_rows(releases) == RELEASES.render(Context({"releases": releases}))
    assert release_rows([]) == ""


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_version_rows_are_what_the_template_made(zone: str) -> None:
    digest = "sha256:" + "0123456789abcdef" * 4
    versions = [
        VersionRow(11, 3, digest, MOMENT, "jo.<park>&co", "eagle3"),
        VersionRow(10, 2, "sha256:short", MOMENT, None, "none"),
        VersionRow(9, 1, digest, MOMENT, "", "ngram"),
    ]
    for slug, active in (("contract-summaries", ContractVersion(pk=10)), ("a.b_c~d", None)):
        context = Context({"versions": versions, "route": {"slug": slug}, "active": active})
        with timezone.override(zone):
            made = version_rows(slug, versions, active.pk if active else None)
            assert made == VERSIONS.render(context)
        assert ("badge-active" in made) == (active is not None)
