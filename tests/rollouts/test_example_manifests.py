"""The shipped Argo Rollouts and Flagger manifests validate against the tools' published
CRD schemas (tests/fixtures/crds/SOURCE.md), with unknown fields refused as the API
server's strict field validation refuses them (a misspelt `successCondtion` would
otherwise be pruned silently and the gate never asked)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CRDS = ROOT / "tests" / "fixtures" / "crds"
EXAMPLES = ROOT / "docs" / "examples"
CRD_FILES = (
    CRDS / "argo-rollouts-v1.9.1" / "analysis-template-crd.yaml",
    CRDS / "argo-rollouts-v1.9.1" / "rollout-crd.yaml",
    CRDS / "flagger-v1.44.0" / "crd.yaml",
)
MANIFESTS = sorted([*EXAMPLES.glob("argo/*.yaml"), *EXAMPLES.glob("flagger/*.yaml")])


def _strict(node: Any) -> Any:
    """Refuse fields an object's schema does not name, unless it keeps unknown fields."""
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def _schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) → the strict openAPIV3Schema of that CRD version."""
    out = {}
    for path in CRD_FILES:
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd:
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                out[(f"{group}/{version['name']}", kind)] = _strict(version["schema"]["openAPIV3Schema"])
    return out


SCHEMAS = _schemas()


def _errors(document: dict[str, Any]) -> list[str]:
    schema = SCHEMAS[(document["apiVersion"], document["kind"])]
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_the_examples_are_there() -> None:
    kinds = {d["kind"] for path in MANIFESTS for d in _documents(path)}
    assert kinds == {"AnalysisTemplate", "Rollout", "Canary"}


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.name for p in MANIFESTS])
def test_each_example_validates_against_its_crd_schema(path: Path) -> None:
    for document in _documents(path):
        assert _errors(document) == [], path


def test_a_misspelt_field_is_refused() -> None:
    template = _documents(EXAMPLES / "argo" / "analysis-template.yaml")[0]
    broken = copy.deepcopy(template)
    metric = broken["spec"]["metrics"][0]
    metric["successCondtion"] = metric.pop("successCondition")
    assert any("successCondtion" in e for e in _errors(broken))


def test_a_wrong_type_is_refused() -> None:
    canary = _documents(EXAMPLES / "flagger" / "canary.yaml")[0]
    broken = copy.deepcopy(canary)
    broken["spec"]["analysis"]["webhooks"][0]["metadata"]["release"] = 42  # map of strings
    assert _errors(broken)


def test_the_rollout_uses_the_shipped_template() -> None:
    rollout = _documents(EXAMPLES / "argo" / "rollout.yaml")[0]
    template = _documents(EXAMPLES / "argo" / "analysis-template.yaml")[0]
    steps = [s["analysis"] for s in rollout["spec"]["strategy"]["canary"]["steps"] if "analysis" in s]
    assert [t["templateName"] for t in steps[0]["templates"]] == [template["metadata"]["name"]]
    required = {a["name"] for a in template["spec"]["args"] if "value" not in a and "valueFrom" not in a}
    assert required == {a["name"] for a in steps[0]["args"]}


def test_the_canary_names_each_hook_of_specpact() -> None:
    canary = _documents(EXAMPLES / "flagger" / "canary.yaml")[0]
    hooks = {h["type"]: h for h in canary["spec"]["analysis"]["webhooks"]}
    assert set(hooks) == {"confirm-rollout", "confirm-promotion", "rollback"}
    for kind, hook in hooks.items():
        assert hook["url"].endswith(f"/api/v1/flagger/{kind}")
        assert {"route", "release", "token"} <= set(hook["metadata"])


def conditions(template: dict[str, Any]) -> tuple[str, str, str]:
    """(the body key its jsonPath selects, the phase success needs, the phase failure needs)."""
    metric = template["spec"]["metrics"][0]
    key = re.fullmatch(r"\{\$\.(\w+)\}", metric["provider"]["web"]["jsonPath"])
    success = re.fullmatch(r'result\.phase == "(\w+)"', metric["successCondition"])
    failure = re.fullmatch(r'result\.phase == "(\w+)"', metric["failureCondition"])
    assert key and success and failure, metric
    return key[1], success[1], failure[1]


@pytest.mark.parametrize("name", ["analysis-template.yaml", "analysis-template-route.yaml"])
def test_the_templates_read_the_phase_the_analysis_answers(name: str) -> None:
    from releases_app.rollout_gate import FAILED, SUCCESSFUL

    key, success, failure = conditions(_documents(EXAMPLES / "argo" / name)[0])
    assert (key, success, failure) == ("result", SUCCESSFUL, FAILED)


def test_the_pipelines_page_shows_the_manifests_as_shipped() -> None:
    """docs/pipelines.md's copy-paste blocks are the files this module validates."""
    page = (ROOT / "docs" / "pipelines.md").read_text()
    for name in ("argo/analysis-template.yaml", "argo/rollout.yaml", "flagger/canary.yaml"):
        assert f"```yaml\n{(EXAMPLES / name).read_text().rstrip()}\n```" in page, name
