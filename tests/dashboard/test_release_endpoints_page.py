"""The release page of a release benchmarked on live endpoints: which two endpoints and
their state, what it waits for (with the last refusal), and the operators' "Benchmark on
these endpoints" button, which probes both (engine emulators on loopback) and starts the
benchmark or says why not, never a 500."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from benchmarks_app.models import Run
from live_app.services import endpoint_create, endpoint_probe
from releases_app.models import Release
from releases_app.services import release_create
from releases_app.services.endpoints import endpoint_register
from tests.live.conftest import LOOPBACK_AND_PRIVATE, vllm_claim
from tests.support.factories import make_version, variant
from tests.support.query_counts import assert_num_queries

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
NAMES = {"baseline": "prod-eu", "candidate": "canary"}
BUTTON = 'aria-label="Benchmark on these endpoints"'
# Pinned: the page of a proposed release with its endpoints, which are read in one query
# whatever their state (joined with their last probe and its version), the last refusal in another.
PAGE_QUERIES = 9


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    """The emulators listen on loopback, which the default networks leave out (only
    tests/live/ allows it for every test)."""
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE
    settings.ENDPOINT_PROBE_TIMEOUT_S = 3


@pytest.fixture
def waiting(route_v1: Any, proposer: Any, operator: Any, emulator: Any) -> Release:
    """A release of v2 (3 speculative tokens instead of 5) proposed on prod-eu (serving v1,
    probed: conforms) and canary (not registered yet), waiting in `proposed`."""
    prod = emulator(*vllm_claim(), env=DEV)
    endpoint = endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm",
                               actor=operator)  # fmt: skip
    endpoint_probe(endpoint=endpoint, actor=operator)
    v2 = make_version(route_v1, variant(route_v1.active_version.document,
                                        **{"speculation.num_speculative_tokens": 3}))  # fmt: skip
    return release_create(route=route_v1, candidate_version=v2.number, actor=proposer, endpoints=NAMES)


def _canary(release: Release, operator: Any, emulator: Any, *flags: str, **claim: Any) -> None:
    """canary, expecting the release, on an emulator claiming the route's n-gram settings
    changed by `claim` (the candidate's: num_speculative_tokens=3)."""
    emu = emulator(*vllm_claim(**claim), *flags, env=DEV)
    endpoint_register(route=release.route, name="canary", base_url=emu.base_url, engine="vllm",
                      expects=f"release:{release.pk}", actor=operator)  # fmt: skip


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(release: Release) -> str:
    return f"/releases/{release.pk}/"


def _post(client: Client, release: Release, **body: str) -> Any:
    return client.post(f"/releases/{release.pk}/endpoints/benchmark", body, follow=True)


def _messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_page_shows_both_endpoints_and_what_the_release_waits_for(
    waiting: Release, operator: Any, viewer: Any, emulator: Any
) -> None:
    page = _client(viewer).get(_page(waiting)).content.decode()
    section = page.split('id="release-endpoints-h"')[1].split("</section>")[0]
    assert "prod-eu conforms (probed" in section and 'badge-conforms">conforms' in section
    assert "canary is not registered on contract-summaries" in section
    assert f"<code>release:{waiting.pk}</code>" in section and "<code>active</code>" in section
    assert f"Waiting for its endpoints: canary must expect release:{waiting.pk}" in section
    assert re.search(r'last probe <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</time>', section)

    # Registered, expecting the active version instead of the release: it says what it expects now.
    emu = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    canary = endpoint_create(route=waiting.route, name="canary", base_url=emu.base_url, engine="vllm",
                             expects="active", actor=operator)  # fmt: skip
    assert canary.state == "unknown"
    client = _client(viewer)
    with assert_num_queries(PAGE_QUERIES):
        page = client.get(_page(waiting)).content.decode()
    assert "canary not probed yet" in page and 'badge-unknown">unknown' in page
    assert "(expects active now)" in page


def test_an_operator_starts_the_benchmark_on_conforming_endpoints(
    waiting: Release, operator: Any, emulator: Any
) -> None:
    _canary(waiting, operator, emulator, num_speculative_tokens=3)
    client = _client(operator)
    assert BUTTON in client.get(_page(waiting)).content.decode()
    response = _post(client, waiting)
    assert response.status_code == 200 and response.redirect_chain == [(_page(waiting), 302)]
    assert _messages(response) == [
        f"Release {waiting.pk} is benchmarking on prod-eu (baseline) and canary (candidate)."
    ]
    release = Release.objects.get(pk=waiting.pk)
    assert release.state == "benchmarking"
    runs = list(Run.objects.filter(release=release))  # one per lane of the contract
    assert runs and {r.engine_kind for r in runs} == {"openai"}
    page = response.content.decode()
    assert BUTTON not in page and "Waiting for its endpoints" not in page
    assert "canary conforms (probed" in page  # the start's own probe
    # Started once: a second press is a message (the service's 409), not a 500.
    again = _post(client, waiting)
    assert again.status_code == 200
    assert _messages(again) == [
        f"Not benchmarked: Release {waiting.pk} is benchmarking: only a proposed release waits for its "
        "endpoints."
    ]
    assert Run.objects.filter(release=release).count() == len(runs)


def test_a_drifted_endpoint_is_the_message_and_the_release_keeps_waiting(
    waiting: Release, operator: Any, emulator: Any
) -> None:
    _canary(waiting, operator, emulator)  # still 5 tokens, not the candidate's 3
    response = _post(_client(operator), waiting)
    assert response.status_code == 200
    (message,) = _messages(response)
    assert message.startswith("Not benchmarked: canary drifted: speculation.num_speculative_tokens 5 ≠ 3")
    assert "Not benchmarked: Not benchmarked" not in message and "prod-eu" not in message
    assert Release.objects.get(pk=waiting.pk).state == "proposed"
    assert not Run.objects.filter(release=waiting).exists()
    page = response.content.decode()
    assert "Last refused: Not benchmarked: canary drifted" in page
    assert "canary drifted: num_speculative_tokens 5 ≠ 3" in page  # the endpoint's row
    assert BUTTON in page  # it may be pressed again once the canary is fixed
    assert AuditEvent.objects.filter(action="release.benchmark_refused").count() == 1


def test_what_an_engine_reports_is_escaped(waiting: Release, operator: Any, emulator: Any) -> None:
    hostile = "<script>alert(1)</script>"
    _canary(waiting, operator, emulator, "--served-model-name", hostile, num_speculative_tokens=3)
    response = _post(_client(operator), waiting)
    page = response.content.decode()
    assert Release.objects.get(pk=waiting.pk).state == "proposed"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # in the message and the refusal
    assert hostile not in page


def test_a_viewer_sees_no_button_and_gets_403(waiting: Release, operator: Any, viewer: Any) -> None:
    assert BUTTON in _client(operator).get(_page(waiting)).content.decode()
    page = _client(viewer).get(_page(waiting)).content.decode()
    assert BUTTON not in page and "Benchmarked on live endpoints" in page
    response = _client(viewer).post(f"/releases/{waiting.pk}/endpoints/benchmark")
    assert response.status_code == 403
    assert _client(operator).get(f"/releases/{waiting.pk}/endpoints/benchmark").status_code == 405
    assert _client(operator).post("/releases/99999/endpoints/benchmark").status_code == 404
    assert Release.objects.get(pk=waiting.pk).state == "proposed"
    assert not AuditEvent.objects.filter(action="release.benchmark_refused").exists()


def test_the_button_needs_the_pages_csrf_token(waiting: Release, operator: Any, emulator: Any) -> None:
    _canary(waiting, operator, emulator, num_speculative_tokens=3)
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    html = client.get(_page(waiting)).content.decode()
    form = html.split(BUTTON)[1].split("</form>")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, "the form has no CSRF token"
    url = f"/releases/{waiting.pk}/endpoints/benchmark"
    assert client.post(url).status_code == 403
    assert Release.objects.get(pk=waiting.pk).state == "proposed"
    response = client.post(url, {"csrfmiddlewaretoken": token.group(1)})
    assert response.status_code == 302 and response["Location"] == _page(waiting)
    assert Release.objects.get(pk=waiting.pk).state == "benchmarking"


def test_an_operator_points_the_registered_canary_at_the_release_from_its_page(
    waiting: Release, operator: Any, viewer: Any, emulator: Any
) -> None:
    url = f"/releases/{waiting.pk}/endpoints/point-candidate"
    none_yet = _client(operator).post(url, follow=True)
    assert "Not changed: the release names no registered candidate endpoint." in _messages(none_yet)
    emu = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    endpoint_create(
        route=waiting.route,
        name="canary",
        base_url=emu.base_url,
        engine="vllm",
        expects="active",
        actor=operator,
    )  # registered as a live one first: not yet this release's
    page = _client(operator).get(_page(waiting)).content.decode()
    assert "Point canary at this release" in page
    assert "Point canary at this release" not in _client(viewer).get(_page(waiting)).content.decode()
    assert _client(viewer).post(url).status_code == 403
    done = _client(operator).post(url, follow=True)
    assert f"canary now expects release:{waiting.pk}; it is probed when the benchmark starts." in _messages(
        done
    )
    assert AuditEvent.objects.filter(action="endpoint.updated").count() == 1
    assert "Point canary at this release" not in done.content.decode()
    started = _post(_client(operator), waiting)
    assert Release.objects.get(pk=waiting.pk).state == "benchmarking", _messages(started)


def test_the_propose_form_takes_both_endpoints_or_neither(
    route_v1: Any, proposer: Any, operator: Any, emulator: Any
) -> None:
    prod = emulator(*vllm_claim(), env=DEV)
    endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
    v2 = make_version(route_v1, variant(route_v1.active_version.document,
                                        **{"speculation.num_speculative_tokens": 3}))  # fmt: skip
    form = {"route": route_v1.slug, "candidate_version": str(v2.number)}
    one = _client(proposer).post("/releases/propose", {**form, "baseline_endpoint": "prod-eu"}, follow=True)
    assert any("give both endpoints, or neither" in m for m in _messages(one))
    unknown = _client(proposer).post(
        "/releases/propose",
        {**form, "baseline_endpoint": "nowhere", "candidate_endpoint": "canary"},
        follow=True,
    )
    assert any("has no endpoint 'nowhere'" in m for m in _messages(unknown)), _messages(unknown)
    assert not Release.objects.filter(candidate_version=v2).exists()
    both = _client(proposer).post(
        "/releases/propose",
        {**form, "baseline_endpoint": "prod-eu", "candidate_endpoint": "canary"},
        follow=True,
    )
    release = Release.objects.get(candidate_version=v2)
    assert release.state == "proposed" and release.endpoints == NAMES
    assert "Waiting for its endpoints" in both.content.decode()
