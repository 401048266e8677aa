"""Authoring in a real browser (issue 22 point 5): an operator edits the active contract on
its route's page, gets an error under the line it concerns, fixes it, sees the new
version's diff against the active one and proposes it; a token's key is shown once.
Screenshots under test-artifacts/browser/<test>/."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts_app.models import ApiToken
from contracts_app.models import ContractVersion, Route
from releases_app.models import Release
from tests.support.browser import sign_in
from tests.support.factories import example, make_version
from tests.support.releases import activate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROUTE = "contract-summaries"


def _replace_in_editor(page: Any, old: str, new: str) -> str:
    text = page.input_value("#id_text")
    assert old in text, (old, text[:400])
    text = text.replace(old, new)
    page.fill("#id_text", text)
    return text


def test_an_operator_edits_fixes_sees_the_diff_and_proposes(
    live_server: Any, page: Any, shots: Any, proposer: Any, approver: Any, operator: Any
) -> None:
    activate(make_version(ROUTE, example()), proposer, approver)
    base = live_server.url
    sign_in(page, base, operator.username)

    page.goto(f"{base}/routes/{ROUTE}/")
    page.click("#route-authoring a:has-text('Edit the active version (v1)')")
    page.wait_for_url(f"{base}/routes/{ROUTE}/versions/new/")
    assert "num_speculative_tokens: 5" in page.input_value("#id_text")
    shots(page, "edit-prefilled")

    # An error: the page comes back with the error under the line that holds it.
    text = _replace_in_editor(page, "num_speculative_tokens: 5", "num_speculative_tokens: -3")
    page.click("#version-form button[type=submit]")
    page.wait_for_selector("#upload-errors")
    wanted = next(i for i, row in enumerate(text.splitlines(), 1) if "num_speculative_tokens: -3" in row)
    line = page.locator(f"ol.numbered li#line-{wanted}")
    assert "num_speculative_tokens: -3" in line.inner_text()
    assert "speculation.num_speculative_tokens" in line.locator(".line-error").inner_text()
    assert page.locator("ol.numbered .line-error").count() >= 1
    shots(page, "error-under-its-line")
    shots.element(line, "error-line-close-up")
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1  # nothing stored

    # The fix, from the text the page kept.
    _replace_in_editor(page, "num_speculative_tokens: -3", "num_speculative_tokens: 7")
    page.click("#version-form button[type=submit]")
    page.wait_for_url(f"{base}/routes/{ROUTE}/versions/2/")
    diff = page.locator("#diff-from-active")
    assert "v1 → v2" in diff.inner_text()
    row = diff.locator("table.diff tr", has_text="num_speculative_tokens")
    cells = [c.strip() for c in row.locator("td").all_inner_texts()]
    assert cells[2:] == ["5", "7"], cells
    shots(page, "new-version-with-diff")

    # Propose it from the route page.
    page.goto(f"{base}/routes/{ROUTE}/")
    form = page.locator("form.propose-form[aria-label='Propose v2']")
    form.locator("input[name=reason]").fill("two more speculative tokens")
    shots(page, "route-page-propose")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(rf"{re.escape(base)}/releases/\d+/$"))
    release = Release.objects.get(route=Route.objects.get(slug=ROUTE), candidate_version__number=2)
    assert page.url == f"{base}/releases/{release.pk}/"
    assert release.proposed_by == operator and release.is_open
    shots(page, "release-proposed")

    # A second proposal while that one is open names it, with a link.
    make_version(ROUTE, {**example(), "description": "Reworded."})
    page.goto(f"{base}/routes/{ROUTE}/")
    page.locator("form.propose-form[aria-label='Propose v3'] button[type=submit]").click()
    page.wait_for_url(f"{base}/routes/{ROUTE}/")
    message = page.locator(".messages .msg-error")
    assert f"release #{release.pk} of this route is still open" in message.inner_text()
    assert message.locator(f"a[href='/releases/{release.pk}/']").count() == 1
    shots(page, "open-release-refusal")
    assert page.js_errors == []


def test_a_token_is_shown_once(live_server: Any, page: Any, shots: Any, operator: Any) -> None:
    base = live_server.url
    sign_in(page, base, operator.username)
    page.click("nav.nav-wide a[href='/tokens/']")
    page.wait_for_url(f"{base}/tokens/")
    page.fill("#id_name", "ci-pipeline")
    page.select_option("#id_role", "operator")
    page.fill("#id_routes", ROUTE)
    page.click("form[aria-label='Issue a token'] button[type=submit]")
    key = page.locator("[data-token-key]").inner_text().strip()
    token = ApiToken.objects.get(name="ci-pipeline")
    assert key.startswith(token.prefix + ".")
    assert page.locator(f"tr[data-token='{token.prefix}']").count() == 1
    shots(page, "token-issued")

    page.goto(f"{base}/tokens/")
    assert page.locator("[data-token-key]").count() == 0
    assert key not in page.content()
    row = page.locator(f"tr[data-token='{token.prefix}']")
    assert "operator · contract-summaries" in row.inner_text() and "never" in row.inner_text()
    shots(page, "token-list-without-key")
    row.locator("button:has-text('Revoke')").click()
    page.wait_for_url(f"{base}/tokens/")
    assert "revoked" in page.locator(f"tr[data-token='{token.prefix}']").inner_text()
    shots(page, "token-revoked")
    assert page.js_errors == []


def test_a_workload_upload_lists_its_bad_lines_then_stores_the_fixed_file(
    live_server: Any, page: Any, shots: Any, operator: Any
) -> None:
    from tests.workloads.samples import SPECPACT
    from workloads_app.models import WorkloadVersion

    base = live_server.url
    sign_in(page, base, operator.username)
    page.goto(f"{base}/workloads/")
    page.click("a:has-text('Upload a workload')")
    page.wait_for_url(f"{base}/workload-upload/")
    page.fill("#id_name", "support-chat")
    bad = (SPECPACT + '{"prompt": 5}\n').encode()
    page.set_input_files("#id_file", {"name": "chat.jsonl", "mimeType": "text/plain", "buffer": bad})
    page.click("form[aria-label='Upload a workload'] button[type=submit]")
    errors = page.locator("#upload-errors")
    assert "1 invalid line (lines 4)" in errors.inner_text()
    assert "line 4" in errors.locator("li").first.inner_text()
    shots(page, "workload-line-error")
    assert not WorkloadVersion.objects.exists()

    page.fill("#id_name", "support-chat")
    page.set_input_files(
        "#id_file", {"name": "chat.jsonl", "mimeType": "application/x-ndjson", "buffer": SPECPACT.encode()}
    )
    page.click("form[aria-label='Upload a workload'] button[type=submit]")
    page.wait_for_url(re.compile(rf"{re.escape(base)}/workloads/support-chat@sha256:[0-9a-f]{{64}}/$"))
    assert WorkloadVersion.objects.get(name="support-chat").requests == 3
    shots(page, "workload-stored")
    assert page.js_errors == []
