"""The advice pages: a route's advice runs and one run, with an advice measured for real
(tests/support/advice.py: the real services, the real harness against emulators per
candidate); route scope on every read and write, operator role and CSRF on the forms."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from accounts_app.services import user_set_routes
from advice_app.choices import AdviceState
from advice_app.models import AdviceRun
from advice_app.services import advice_draft_create
from audit_app.actors import Actor
from contracts_app.models import Route
from releases_app.models import Release
from tests.support.advice import LANE
from tests.support.advised import advice_asked, advice_finished, advised_route
from tests.support.factories import make_user
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return advised_route(proposer=proposer, approver=approver)


def _advice(route: Route, actor: Any) -> AdviceRun:
    return advice_asked(route, actor)


@pytest.fixture
def finished(route: Route, operator: Any) -> AdviceRun:
    return advice_finished(route, operator)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _scoped_operator(slugs: list[str]) -> Any:
    user = make_user("scoped-op", role="operator")
    user_set_routes(user=user, routes=slugs, actor=Actor.system("system:tests"))
    return user


def test_the_advice_page_shows_the_recommendation_in_words_with_interval_and_n(
    finished: AdviceRun, viewer: Any
) -> None:
    body = _client(viewer).get(f"/advice/{finished.pk}/").content.decode()
    rec = finished.recommendations[LANE]
    assert "Finished: every lane has its recommendation." in body
    section = body[body.index(f'data-lane="{LANE}"') :]
    lo, hi = rec["value_ci"]
    assert f"[{lo:.2f}, {hi:.2f}]" in section and "requests per cell" in section
    assert f"Budget: {rec['requests_spent']} of {finished.budget} requests spent." in section
    # Both figures of the lane, embedded as JSON the chart script draws.
    for kind in ("curves", "front"):
        start = body.index(f'data-plotly="chart-advice-lane0-{kind}"')
        figure = json.loads(body[body.index(">", start) + 1 : body.index("</script>", start)])
        assert figure["data"]
    assert "vendor/plotly-cartesian.min.js" in body


def test_dropped_candidates_are_listed_with_why_and_at_what_n(finished: AdviceRun, viewer: Any) -> None:
    body = _client(viewer).get(f"/advice/{finished.pk}/").content.decode()
    rec = finished.recommendations[LANE]
    if rec["dropped"]:
        table = body[body.index('aria-label="Dropped candidates') :]
        for d in rec["dropped"]:
            assert f"<code>{d['candidate']}</code>" in table and f"<td>{d['n']}</td>" in table
    else:
        assert "No candidate was dropped." in body


def test_the_route_advice_list_pages_newest_first(route: Route, operator: Any, viewer: Any) -> None:
    older, newer = _advice(route, operator), _advice(route, operator)
    body = _client(viewer).get(f"/routes/{route.slug}/advice/").content.decode()
    assert body.index(f'href="/advice/{newer.pk}/"') < body.index(f'href="/advice/{older.pk}/"')
    # A viewer gets no form to start one.
    assert 'id="new-advice"' not in body


def test_the_list_reads_in_constant_queries(route: Route, operator: Any, viewer: Any) -> None:
    client = _client(viewer)
    _advice(route, operator)
    client.get(f"/routes/{route.slug}/advice/")  # the session row exists from here on
    # The session, the user, the role row (route scope), the route, the page count, the rows.
    with assert_num_queries(6):
        assert client.get(f"/routes/{route.slug}/advice/").status_code == 200
    _advice(route, operator)
    _advice(route, operator)
    with assert_num_queries(6):
        assert client.get(f"/routes/{route.slug}/advice/").status_code == 200


def test_an_operator_starts_an_advice_run_from_the_form(route: Route, operator: Any) -> None:
    client = _client(operator)
    page = client.get(f"/routes/{route.slug}/advice/").content.decode()
    assert 'id="new-advice"' in page and 'name="csrfmiddlewaretoken"' in page
    response = client.post(
        f"/routes/{route.slug}/advice/new",
        {"lanes": [LANE], "candidates": "ngram:3\nngram:5 long", "budget": "4000", "seed": "1"},
    )
    advice = AdviceRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/advice/{advice.pk}/"
    assert [c["name"] for c in advice.candidates] == ["ngram-3", "long"]
    assert advice.state == AdviceState.MEASURING and advice.created_by == operator


def test_a_refused_advice_run_says_which_field_and_why(route: Route, operator: Any) -> None:
    client = _client(operator)
    response = client.post(
        f"/routes/{route.slug}/advice/new",
        {"lanes": [LANE], "candidates": "medusa:3", "budget": "4000"},
        follow=True,
    )
    assert response.status_code == 200 and not AdviceRun.objects.exists()
    text = response.content.decode()
    assert "No advice run started" in text and "candidates[0]." in text
    bad = client.post(
        f"/routes/{route.slug}/advice/new", {"lanes": [LANE], "candidates": "ngram three"}, follow=True
    )
    assert "candidates: line 1" in bad.content.decode() and "budget:" in bad.content.decode()


def test_a_viewer_cannot_start_or_propose(route: Route, finished: AdviceRun, viewer: Any) -> None:
    client = _client(viewer)
    count = AdviceRun.objects.count()
    response = client.post(
        f"/routes/{route.slug}/advice/new",
        {"lanes": [LANE], "candidates": "ngram:3", "budget": "4000"},
        follow=True,
    )
    assert "No advice run started" in response.content.decode() and AdviceRun.objects.count() == count
    client.post(f"/advice/{finished.pk}/draft")
    assert AdviceRun.objects.get(pk=finished.pk).draft_version is None
    page = client.get(f"/advice/{finished.pk}/").content.decode()
    assert "Draft the version" not in page and "Propose as a release" not in page


def test_the_forms_need_csrf(route: Route, finished: AdviceRun, operator: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    for url in (
        f"/routes/{route.slug}/advice/new",
        f"/advice/{finished.pk}/draft",
        f"/advice/{finished.pk}/propose",
    ):
        assert (
            client.post(url, {"lanes": [LANE], "candidates": "ngram:3", "budget": "4000"}).status_code == 403
        )
    assert AdviceRun.objects.count() == 1 and AdviceRun.objects.get().draft_version is None


def test_out_of_scope_the_pages_and_forms_are_not_found(route: Route, finished: AdviceRun) -> None:
    client = _client(_scoped_operator(["another-route"]))
    for url in (f"/routes/{route.slug}/advice/", f"/advice/{finished.pk}/"):
        assert client.get(url).status_code == 404
    for url in (
        f"/routes/{route.slug}/advice/new",
        f"/advice/{finished.pk}/draft",
        f"/advice/{finished.pk}/propose",
    ):
        assert (
            client.post(url, {"lanes": [LANE], "candidates": "ngram:3", "budget": "4000"}).status_code == 404
        )
    assert AdviceRun.objects.count() == 1 and AdviceRun.objects.get().draft_version is None
    # Not-found reads the same as an advice run that does not exist.
    assert client.get("/advice/999999/").status_code == 404


def test_draft_then_propose_opens_a_normal_release(finished: AdviceRun, operator: Any) -> None:
    client = _client(operator)
    page = client.get(f"/advice/{finished.pk}/").content.decode()
    assert "Draft the version" in page
    client.post(f"/advice/{finished.pk}/draft")
    advice = AdviceRun.objects.get(pk=finished.pk)
    draft = advice.draft_version
    assert draft is not None
    page = client.get(f"/advice/{finished.pk}/").content.decode()
    assert f'href="/routes/{advice.route.slug}/versions/{draft.number}/"' in page
    diff = re.search(r'href="(/routes/[^"]+/diff/\?from=(\d+)&amp;to=(\d+))"', page)
    assert diff and (int(diff[2]), int(diff[3])) == (advice.based_on.number, draft.number)
    assert client.get(diff[1].replace("&amp;", "&")).status_code == 200
    response = client.post(f"/advice/{finished.pk}/propose", {"reason": "the advisor's pick"})
    release = Release.objects.get(candidate_version=draft)
    assert response["Location"] == f"/releases/{release.pk}/"
    assert release.state == "benchmarking"  # the gate measures again, on fresh samples
    assert AdviceRun.objects.get(pk=finished.pk).release == release
    page = client.get(f"/advice/{finished.pk}/").content.decode()
    assert f'href="/releases/{release.pk}/"' in page and "Propose as a release" not in page


def test_a_refused_draft_is_said_on_the_page(finished: AdviceRun, operator: Any) -> None:
    advice_draft_create(advice=finished, actor=operator)
    client = _client(operator)
    client.post(f"/advice/{finished.pk}/propose", {"reason": "first"})
    again = client.post(f"/advice/{finished.pk}/propose", {"reason": "twice"}, follow=True)
    assert "Not proposed:" in again.content.decode()
    assert (
        Release.objects.filter(candidate_version=AdviceRun.objects.get(pk=finished.pk).draft_version).count()
        == 1
    )


def test_the_advice_page_reads_in_constant_queries(finished: AdviceRun, operator: Any) -> None:
    client = _client(operator)
    client.get(f"/advice/{finished.pk}/")  # the session row exists from here on
    # The session, the user, the role row (route scope and the forms), the advice with its
    # route, versions, release and asker in one.
    with assert_num_queries(4):
        assert client.get(f"/advice/{finished.pk}/").status_code == 200
