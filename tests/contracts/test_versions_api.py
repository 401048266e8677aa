"""POST/GET routes/{slug}/versions/: uploads are validated whole, idempotent by digest,
immutable, and bad input is a 400 problem that stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from django.db import IntegrityError, connection, transaction

from audit_app.models import AuditEvent
from contracts_app.models import ContractVersion, Route
from tests.support.actors import Caller
from tests.support.factories import example, examples_dir, variant

pytestmark = pytest.mark.django_db

URL = "/api/v1/routes/{}/versions/"


def upload_yaml(client: Any, slug: str, doc: dict[str, Any] | str) -> Any:
    body = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False)
    return client.post(URL.format(slug), data=body, content_type="application/yaml")


def upload_json(client: Any, slug: str, doc: Any) -> Any:
    body = doc if isinstance(doc, (bytes, str)) else json.dumps(doc)
    return client.post(URL.format(slug), data=body, content_type="application/json")


def assert_problem(response: Any, status: int = 400) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    assert body["detail"]
    return body


def nothing_stored() -> None:
    assert ContractVersion.objects.count() == 0
    assert Route.objects.count() == 0
    assert not AuditEvent.objects.filter(action="contract.uploaded").exists()


def test_first_upload_creates_route_and_version_1(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    response = upload_yaml(client, "contract-summaries", example())
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["version"] == 1
    assert body["digest"].startswith("sha256:") and len(body["digest"]) == 71
    assert body["diff_from_active"] == []
    assert Route.objects.get(slug="contract-summaries").active_version is None
    event = AuditEvent.objects.get(action="contract.uploaded")
    assert event.route == "contract-summaries"
    assert event.actor_label == "user:pat-proposer"


def test_the_same_document_again_is_the_same_version(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    first = upload_yaml(client, "contract-summaries", example())
    # JSON form with keys in another order: same digest, same version.
    reordered = dict(reversed(list(example().items())))
    again = upload_json(client, "contract-summaries", reordered)
    assert again.status_code == 200
    assert again.json()["version"] == 1
    assert again.json()["digest"] == first.json()["digest"]
    assert ContractVersion.objects.count() == 1


def test_versions_are_numbered_monotonically(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    for tokens in (5, 4, 3):
        doc = variant(example(), **{"speculation.num_speculative_tokens": tokens})
        upload_yaml(client, "contract-summaries", doc)
    listed = client.get(URL.format("contract-summaries")).json()
    assert [v["version"] for v in listed["results"]] == [3, 2, 1]


def test_every_example_contract_uploads(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    for path in sorted(examples_dir().glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        slug = yaml.safe_load(text)["route"]
        response = upload_yaml(client, slug, text)
        assert response.status_code == 201, (path.name, response.content)


def test_diff_from_active_lists_changes_with_impact(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    upload_yaml(client, "contract-summaries", example())
    route = Route.objects.get(slug="contract-summaries")
    route.active_version = route.versions.get(number=1)
    route.save()
    doc = variant(example(), **{"speculation.num_speculative_tokens": 3})
    body = upload_yaml(client, "contract-summaries", doc).json()
    assert {"path": "speculation.num_speculative_tokens", "impact": "route-identity"}.items() <= body[
        "diff_from_active"
    ][0].items()


def test_document_route_must_match_slug(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    body = assert_problem(upload_yaml(client, "other-route", example()))
    assert {"path": "route"}.items() <= body["errors"][0].items()
    nothing_stored()


def test_invalid_document_lists_every_error_and_stores_nothing(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    doc = variant(
        example(),
        **{
            "speculation.params": {"prompt_lookup_min": 6, "prompt_lookup_max": 2},
            "lanes.excluded": ["agent", "summarization"],
        },
    )
    body = assert_problem(upload_yaml(client, "contract-summaries", doc))
    paths = {e["path"] for e in body["errors"]}
    assert any(p.startswith("speculation.params") for p in paths)
    assert any(p.startswith("lanes") for p in paths)
    nothing_stored()


@pytest.mark.parametrize(
    ("content_type", "body", "path_hint"),
    [
        ("application/yaml", "route: [unclosed\n  target: {", None),
        ("application/json", '{"apiVersion": "specpact/v1", ', None),
        ("application/yaml", b"route: caf\xe9\n", None),
        ("application/yaml", "- just\n- a list\n", None),
    ],
    ids=["malformed-yaml", "malformed-json", "non-utf8", "not-a-mapping"],
)
def test_unparseable_bodies_are_400_problems(
    proposer: Any, content_type: str, body: Any, path_hint: str | None
) -> None:
    client = Caller("p", user=proposer).client()
    response = client.post(URL.format("contract-summaries"), data=body, content_type=content_type)
    assert_problem(response)
    nothing_stored()


def test_wrong_types_unknown_fields_and_api_version_are_rejected(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    cases = {
        "apiVersion": variant(example(), apiVersion="specpact/v9"),
        "speculation.num_speculative_tokens": variant(
            example(), **{"speculation.num_speculative_tokens": "five"}
        ),
        "speculation.surprise": variant(example(), **{"speculation.surprise": True}),
    }
    for expected_path, doc in cases.items():
        body = assert_problem(upload_yaml(client, "contract-summaries", doc))
        assert any(e["path"].startswith(expected_path) for e in body["errors"]), (expected_path, body)
    nothing_stored()


def test_a_5_mb_body_is_a_413_problem_naming_the_limit(proposer: Any) -> None:
    # Issue 12: over a limit is 413 (it was a 400), with the limit and its setting named.
    client = Caller("p", user=proposer).client()
    huge = yaml.safe_dump(example()) + "# " + "x" * (5 * 1024 * 1024) + "\n"
    body = assert_problem(upload_yaml(client, "contract-summaries", huge), 413)
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in body["detail"]
    nothing_stored()


def test_unsupported_content_type_is_415(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    response = client.post(URL.format("contract-summaries"), data="x", content_type="text/plain")
    assert_problem(response, 415)


def test_rollback_to_a_version_that_does_not_exist_is_refused(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    doc = variant(example(), **{"rollback.to": "version:7"})
    body = assert_problem(upload_yaml(client, "contract-summaries", doc))
    assert body["errors"][0]["path"] == "rollback.to"
    nothing_stored()


def test_rollback_to_an_existing_version_is_accepted(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    upload_yaml(client, "contract-summaries", example())
    doc = variant(example(), **{"rollback.to": "version:1", "speculation.num_speculative_tokens": 4})
    assert upload_yaml(client, "contract-summaries", doc).status_code == 201


def test_stored_versions_cannot_be_edited_or_deleted(proposer: Any) -> None:
    client = Caller("p", user=proposer).client()
    upload_yaml(client, "contract-summaries", example())
    version = ContractVersion.objects.get()
    with pytest.raises(ValueError, match="immutable"):
        version.save()
    # Writes that bypass the model hit the database trigger.
    for sql in (
        "UPDATE contracts_app_contractversion SET digest = 'sha256:x'",
        "DELETE FROM contracts_app_contractversion",
    ):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert ContractVersion.objects.get().digest == version.digest


def test_version_detail_returns_document_with_digest_etag(viewer: Any, proposer: Any) -> None:
    upload_yaml(Caller("p", user=proposer).client(), "contract-summaries", example())
    response = Caller("v", user=viewer).client().get(URL.format("contract-summaries") + "1/")
    assert response.status_code == 200
    assert response.json()["document"]["route"] == "contract-summaries"
    assert response["ETag"] == f'"{response.json()["digest"]}"'


def test_unknown_route_and_version_are_404_problems(viewer: Any) -> None:
    client = Caller("v", user=viewer).client()
    assert_problem(client.get("/api/v1/routes/nope/"), 404)
    assert_problem(client.get(URL.format("nope") + "1/"), 404)


def test_viewer_cannot_upload(viewer: Any) -> None:
    response = upload_yaml(Caller("v", user=viewer).client(), "contract-summaries", example())
    assert_problem(response, 403)
    nothing_stored()


def test_anonymous_cannot_read(db: None) -> None:
    from rest_framework.test import APIClient

    response = APIClient().get("/api/v1/routes/")
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/problem+json")


def test_scoped_pipeline_token_uploads_to_its_route_only(pipeline: Caller) -> None:
    client = pipeline.client()
    assert upload_yaml(client, "contract-summaries", example()).status_code == 201
    other = example("support-chat-eagle3")
    assert_problem(upload_yaml(client, "support-chat", other), 404)
    assert not Route.objects.filter(slug="support-chat").exists()


def test_scoped_token_lists_only_its_routes(pipeline: Caller, proposer: Any) -> None:
    owner = Caller("p", user=proposer).client()
    upload_yaml(owner, "contract-summaries", example())
    upload_yaml(owner, "support-chat", example("support-chat-eagle3"))
    listed = pipeline.client().get("/api/v1/routes/").json()
    assert [r["slug"] for r in listed["results"]] == ["contract-summaries"]
    assert_problem(pipeline.client().get("/api/v1/routes/support-chat/"), 404)
