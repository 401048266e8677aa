"""The new-version page (contracts_app/views/authoring.py): an operator saves a version from
the browser; a refused document comes back with each error under its line and nothing
stored; viewers and other routes' tokens are refused like the API refuses them."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts_app.permissions import can_access_route
from audit_app.actors import Actor
from audit_app.models import AuditEvent
from contracts_app import services
from contracts_app.document import MAX_DOCUMENT_BYTES, ContractError
from contracts_app.models import ContractVersion, Route
from kernel.errors import NotFound
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db

ROUTE = "contract-summaries"
URL = f"/routes/{ROUTE}/versions/new/"


def _client(user: Any, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


@pytest.fixture
def v1(db: None) -> ContractVersion:
    return make_version(ROUTE, example())


def _text(**changes: Any) -> str:
    return yaml.safe_dump(variant(example(), **changes), sort_keys=False)


def test_the_page_is_prefilled_with_the_active_version(route_v1: Route, operator: Any) -> None:
    html = _client(operator).get(URL).content.decode()
    assert "Filled in with v1" in html and "(active)" in html
    assert "num_speculative_tokens: 5" in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_a_version_can_be_the_starting_point(v1: ContractVersion, operator: Any) -> None:
    make_version(ROUTE, variant(example(), **{"speculation.num_speculative_tokens": 3}))
    html = _client(operator).get(f"{URL}?from=2").content.decode()
    assert "Filled in with v2" in html and "num_speculative_tokens: 3" in html
    assert _client(operator).get(f"{URL}?from=9").status_code == 404
    assert _client(operator).get(f"{URL}?from=x").status_code == 404


def test_saving_through_the_page_with_csrf_shows_the_diff_against_the_active(
    route_v1: Route, operator: Any
) -> None:
    client = _client(operator, csrf=True)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(URL).content.decode())
    assert token
    response = client.post(
        URL,
        {"text": _text(**{"speculation.num_speculative_tokens": 7}), "csrfmiddlewaretoken": token.group(1)},
    )
    assert response.status_code == 302 and response["Location"] == f"/routes/{ROUTE}/versions/2/"
    stored = ContractVersion.objects.get(route__slug=ROUTE, number=2)
    assert stored.document["speculation"]["num_speculative_tokens"] == 7
    assert stored.created_by == operator and stored.source_format == "yaml"
    assert AuditEvent.objects.filter(action="contract.uploaded", object_id=f"{ROUTE}:v2").exists()
    page = client.get(response["Location"]).content.decode().replace("<wbr>", "")
    assert "Stored as version 2" in page
    assert "Against the active version (v1 → v2)" in page
    assert "speculation.num_speculative_tokens" in page and ">5<" in page and ">7<" in page
    assert "Propose v2" in page


def test_without_csrf_nothing_is_saved(route_v1: Route, operator: Any) -> None:
    response = _client(operator, csrf=True).post(URL, {"text": _text()})
    assert response.status_code == 403
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1


def test_the_same_document_again_is_the_same_version(route_v1: Route, operator: Any) -> None:
    response = _client(operator).post(URL, {"text": _text()}, follow=True)
    assert "Nothing new: this document is already version 1" in response.content.decode()
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1


def test_a_schema_error_is_shown_under_its_line_and_nothing_is_stored(route_v1: Route, operator: Any) -> None:
    text = _text(**{"speculation.num_speculative_tokens": -1})
    response = _client(operator).post(URL, {"text": text})
    assert response.status_code == 400
    html = response.content.decode()
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if "num_speculative_tokens: -1" in row)
    errors = re.findall(r'class="line-error" data-line="(\d+)"', html)
    assert str(line) in errors
    assert "Not saved" in html
    assert text.splitlines()[0] in html  # the text is still in the text area, to fix
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1
    assert not AuditEvent.objects.filter(action="contract.uploaded").exists()


def test_a_document_for_another_route_is_refused_on_the_route_line(route_v1: Route, operator: Any) -> None:
    text = _text().replace(f"route: {ROUTE}", "route: elsewhere")
    html = _client(operator).post(URL, {"text": text}).content.decode().replace("<wbr>", "")
    assert re.search(r'data-line="2">[^<]*<code>route</code>: the document is for route', html)
    assert not Route.objects.filter(slug="elsewhere").exists()


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"route: a\nroute: b\n", "duplicate key &#x27;route&#x27;"),
        (b"apiVersion: specpact/v1\nroute: \xff\xfe\n", "not valid UTF-8: bad byte at byte offset 31"),
        (b"a: &x [1]\nb: *x\n", "aliases"),
        (b"speculation: [unclosed\n", "invalid YAML at line"),
        (b"- a list\n", "must be a mapping"),
        (b"a: \x00\n", "unacceptable character #x0000"),
    ],
)
def test_hostile_files_are_clear_errors_never_a_500(
    route_v1: Route, operator: Any, raw: bytes, said: str
) -> None:
    upload = SimpleUploadedFile("contract.yaml", raw, content_type="application/yaml")
    response = _client(operator).post(URL, {"file": upload})
    assert response.status_code == 400, response.content[:500]
    assert said in response.content.decode()
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1


def test_a_huge_file_is_refused_by_its_size(route_v1: Route, operator: Any) -> None:
    upload = SimpleUploadedFile("big.yaml", b"a: " + b"x" * MAX_DOCUMENT_BYTES + b"\n")
    response = _client(operator).post(URL, {"file": upload})
    assert response.status_code == 400
    assert f"the limit is {MAX_DOCUMENT_BYTES} bytes" in response.content.decode()


def test_a_huge_text_is_refused_by_its_size(route_v1: Route, operator: Any) -> None:
    response = _client(operator).post(URL, {"text": "a: " + "x" * (MAX_DOCUMENT_BYTES + 10)})
    assert response.status_code == 413
    assert "MAX_DOCUMENT_BYTES" in response.content.decode()
    assert "line-error" not in response.content.decode()  # no listing of 256 KiB


def test_a_file_from_disk_is_saved_as_its_format(route_v1: Route, operator: Any) -> None:
    import json

    doc = variant(example(), **{"speculation.num_speculative_tokens": 3})
    upload = SimpleUploadedFile("c.json", json.dumps(doc).encode(), content_type="application/json")
    response = _client(operator).post(URL, {"file": upload})
    assert response.status_code == 302
    assert ContractVersion.objects.get(route__slug=ROUTE, number=2).source_format == "json"


def test_text_and_file_together_or_neither_are_refused(route_v1: Route, operator: Any) -> None:
    upload = SimpleUploadedFile("c.yaml", _text().encode())
    both = _client(operator).post(URL, {"text": _text(), "file": upload})
    assert both.status_code == 400 and "not both" in both.content.decode()
    empty = _client(operator).post(URL, {"text": "  "})
    assert empty.status_code == 400 and "the contract is empty" in empty.content.decode()


def test_a_viewer_may_not_open_or_post_the_page(route_v1: Route, viewer: Any) -> None:
    client = _client(viewer)
    assert client.get(URL).status_code == 403
    assert client.post(URL, {"text": _text(**{"speculation.num_speculative_tokens": 7})}).status_code == 403
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1
    assert "Edit as a new version" not in client.get(f"/routes/{ROUTE}/versions/1/").content.decode()


def test_an_unknown_route_is_404(operator: Any) -> None:
    assert _client(operator).get("/routes/nope/versions/new/").status_code == 404


def test_the_login_page_first(route_v1: Route) -> None:
    response = Client().get(URL)
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_token_scoped_to_another_route_is_refused_by_the_same_rule(route_v1: Route, outsider: Any) -> None:
    # Pages are signed-in sessions (never route-scoped); the page's check is the API's own,
    # `ensure_route_access`, and the service it calls refuses the scoped actor.
    actor = Actor.for_user(outsider.user, outsider.token)
    assert not can_access_route(actor, route_v1)
    with pytest.raises(NotFound):
        services.contract_version_create(
            slug=ROUTE, document=variant(example(), **{"speculation.num_speculative_tokens": 7}),
            source_format="yaml", actor=actor,
        )  # fmt: skip
    assert ContractVersion.objects.filter(route__slug=ROUTE).count() == 1


def test_the_service_error_type_is_what_the_page_lists(route_v1: Route, operator: Any) -> None:
    with pytest.raises(ContractError) as caught:
        services.contract_version_create(
            slug=ROUTE, document={"route": ROUTE}, source_format="yaml", actor=operator
        )
    html = _client(operator).post(URL, {"text": f"route: {ROUTE}\n"}).content.decode().replace("<wbr>", "")
    for error in caught.value.errors:
        assert f"<code>{error.path}</code>" in html or error.path == ""
