"""diff, render, validate, import and the published schema, through the API."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from tests.support.actors import Caller
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def summaries(db: None) -> str:
    doc = example()
    make_version("contract-summaries", doc)
    make_version(
        "contract-summaries",
        variant(doc, speculation={"method": "draft_model", "num_speculative_tokens": 4}) | _draft_assets(doc),
    )
    make_version(
        "contract-summaries", variant(doc, **{"lanes.allowed": ["summarization"]}) | _no_extraction(doc)
    )
    make_version("contract-summaries", variant(doc, description="Summaries for the review desk."))
    return "contract-summaries"


def _draft_assets(doc: dict[str, Any]) -> dict[str, Any]:
    tokenizer = doc["compatibility"]["tokenizer"]
    return {
        "assets": [
            {
                "role": "draft",
                "name": "meta-llama/Llama-3.2-1B-Instruct",
                "revision": "9213176726f574b556790deb65791e0c5aa438b6",
                "size_bytes": 2471645608,
                "tokenizer": dict(tokenizer),
            }
        ]
    }


def _no_extraction(doc: dict[str, Any]) -> dict[str, Any]:
    workloads = {k: v for k, v in doc["measurement"]["workloads"].items() if k != "extraction"}
    return {"measurement": {**doc["measurement"], "workloads": workloads}}


def test_diff_of_a_method_change_is_route_identity(viewer: Any, summaries: str) -> None:
    body = Caller("v", user=viewer).client().get(f"/api/v1/routes/{summaries}/diff?from=1&to=2").json()
    assert body["highest_impact"] == "route-identity"
    assert body["requires_benchmark"] is True
    paths = {c["path"]: c for c in body["changes"]}
    assert paths["speculation.method"]["old"] == "ngram"
    assert paths["speculation.method"]["new"] == "draft_model"
    assert any(p.startswith("assets[role=draft]") for p in paths)


def test_diff_of_a_lane_change_is_scope(viewer: Any, summaries: str) -> None:
    body = Caller("v", user=viewer).client().get(f"/api/v1/routes/{summaries}/diff?from=1&to=3").json()
    impacts = {c["path"]: c["impact"] for c in body["changes"]}
    assert any(p.startswith("lanes.allowed") and i == "scope" for p, i in impacts.items())
    assert body["requires_benchmark"] is False


def test_diff_of_a_description_change_is_cosmetic(viewer: Any, summaries: str) -> None:
    body = Caller("v", user=viewer).client().get(f"/api/v1/routes/{summaries}/diff?from=1&to=4").json()
    assert body["highest_impact"] == "cosmetic"
    assert [c["path"] for c in body["changes"]] == ["description"]


def test_diff_needs_both_versions(viewer: Any, summaries: str) -> None:
    client = Caller("v", user=viewer).client()
    response = client.get(f"/api/v1/routes/{summaries}/diff?to=2")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "from"
    assert client.get(f"/api/v1/routes/{summaries}/diff?from=1&to=99").status_code == 404
    assert client.get(f"/api/v1/routes/{summaries}/diff?from=x&to=2").status_code == 400


def test_render_gives_the_engine_command(viewer: Any, summaries: str) -> None:
    client = Caller("v", user=viewer).client()
    body = client.get(f"/api/v1/routes/{summaries}/versions/1/render?engine=vllm").json()
    assert body["argv"][:2] == ["vllm", "serve"]
    assert "--speculative-config" in body["argv"]
    assert body["config"]["method"] == "ngram"
    default = client.get(f"/api/v1/routes/{summaries}/versions/1/render").json()
    assert default["engine"] == "vllm"


def test_render_for_an_engine_that_cannot_run_the_method_is_a_400(viewer: Any, summaries: str) -> None:
    client = Caller("v", user=viewer).client()
    response = client.get(f"/api/v1/routes/{summaries}/versions/2/render?engine=tgi")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert client.get(f"/api/v1/routes/{summaries}/versions/1/render?engine=nope").status_code == 400


def test_validate_accepts_a_good_document_and_stores_nothing(viewer: Any) -> None:
    from contracts_app.models import ContractVersion

    response = (
        Caller("v", user=viewer)
        .client()
        .post("/api/v1/contracts/validate", data=yaml.safe_dump(example()), content_type="application/yaml")
    )
    assert response.status_code == 200
    assert response.json()["valid"] is True
    assert response.json()["digest"].startswith("sha256:")
    assert ContractVersion.objects.count() == 0


def test_validate_lists_every_error(viewer: Any) -> None:
    doc = variant(example(), **{"speculation.method": "none", "lanes.excluded": ["extraction"]})
    response = Caller("v", user=viewer).client().post("/api/v1/contracts/validate", data=doc, format="json")
    assert response.status_code == 400
    assert len(response.json()["errors"]) >= 2


def test_import_parses_an_engine_command(viewer: Any) -> None:
    command = (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "
        '\'{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5, "prompt_lookup_min": 2}\''
    )
    response = (
        Caller("v", user=viewer)
        .client()
        .post("/api/v1/contracts/import", data={"engine": "vllm", "command": command}, format="json")
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["document"]["speculation"]["method"] == "ngram"
    assert body["document"]["target"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert body["unresolved"], "fields the command cannot say are named"


def test_import_takes_the_files_a_trtllm_command_names(viewer: Any) -> None:
    # NVIDIA/TensorRT-LLM docs/source/features/speculative-decoding.md: options via --config config.yaml.
    yaml_text = "speculative_config:\n  decoding_type: MTP\n  max_draft_len: 3\n"
    client = Caller("v", user=viewer).client()
    payload = {"engine": "trtllm", "command": "trtllm-serve org/m --config config.yaml"}
    ok = client.post(
        "/api/v1/contracts/import", data={**payload, "files": {"config.yaml": yaml_text}}, format="json"
    )
    assert ok.status_code == 200, ok.content
    assert ok.json()["document"]["speculation"] == {"method": "mtp", "num_speculative_tokens": 3}
    missing = client.post("/api/v1/contracts/import", data=payload, format="json")
    assert missing.status_code == 400
    assert "config.yaml" in missing.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"engine": "nope", "command": "x"}, "engine"),
        ({"engine": "vllm", "command": "vllm serve m", "files": {"a.yaml": "x: 1"}}, "files"),
        ({"engine": "trtllm", "command": "trtllm-serve m", "files": "nope"}, "files"),
        ({"engine": "vllm", "command": 5}, "command"),
        ({"engine": "vllm", "command": "vllm serve 'unclosed"}, "command"),
        ({"engine": "vllm", "command": []}, "command"),
    ],
)
def test_import_refuses_bad_input(viewer: Any, payload: dict[str, Any], path: str) -> None:
    response = Caller("v", user=viewer).client().post("/api/v1/contracts/import", data=payload, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == path


def test_schema_is_public_json_schema(db: None) -> None:
    response = APIClient().get("/api/v1/contracts/schema.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["$id"].endswith("/contract/v1.json")
    assert "speculation" in schema["properties"]


def test_openapi_schema_and_docs_are_served_locally(viewer: Any) -> None:
    client = Caller("v", user=viewer).client()
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert "/api/v1/routes/{slug}/versions/" in schema.json()["paths"]
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200
    # Private networks: every asset the docs page loads is served by this server.
    assert re.findall(rb"(?:src|href)=\"(https?://[^\"]+)", docs.content) == []
