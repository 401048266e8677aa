"""The published JSON Schema and the metric names the gate imports."""

from __future__ import annotations

import pytest

from contracts_app.document import METRICS, SCHEMA_ID, contract_json_schema, lower_is_better


def test_the_schema_is_published_with_its_id_and_descriptions() -> None:
    schema = contract_json_schema()
    assert schema["$id"] == SCHEMA_ID == "https://specpact.dev/schema/contract/v1.json"
    assert schema["title"] == "SpecPact route contract (specpact/v1)"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) >= {
        "apiVersion",
        "route",
        "target",
        "speculation",
        "lanes",
        "measurement",
        "rollback",
    }
    speculation = schema["$defs"]["Speculation"]["properties"]
    assert speculation["method"]["description"]
    assert "none" in speculation["method"]["enum"]
    params = schema["$defs"]["SpeculationParams"]["properties"]
    assert (
        "heterogeneous_vocab" in params
        and "universal assisted decoding" in params["heterogeneous_vocab"]["description"]
    )
    assert all(
        d.get("additionalProperties") is False for d in schema["$defs"].values() if d.get("type") == "object"
    )


def test_the_metrics_are_the_gates_names() -> None:
    assert {
        "ttft_p50",
        "tpot_p95",
        "itl_chunk_p99",
        "e2e_p90",
        "output_tokens_per_s",
        "requests_per_s",
    } <= METRICS
    assert len(METRICS) == 4 * 4 + 2
    assert lower_is_better("tpot_p50") and lower_is_better("itl_chunk_p95")
    assert not lower_is_better("output_tokens_per_s") and not lower_is_better("requests_per_s")
    with pytest.raises(KeyError):
        lower_is_better("itl_p50")


def test_the_document_package_works_without_django_settings() -> None:
    import subprocess
    import sys
    from pathlib import Path

    package = Path(__file__).resolve().parents[3] / "contracts_app" / "document"
    for source in package.rglob("*.py"):
        text = source.read_text()
        assert "import django" not in text and "from django" not in text, source
        assert "_app.models" not in text, source
    # Parse, validate, digest and render in a fresh interpreter with no settings module.
    example = package.parents[1] / "../shared/contracts/examples/support-chat-eagle3.yaml"
    code = (
        "import sys, pathlib;"
        "from contracts_app.document import parse_document, validate_document, document_digest, render;"
        f"raw = pathlib.Path({str(example)!r}).read_bytes();"
        "doc = validate_document(parse_document(raw, 'yaml'));"
        "print(document_digest(doc), render(doc).argv[0]);"
        "conf = sys.modules.get('django.conf');"
        "sys.exit(1 if conf is not None and conf.settings.configured else 0)"
    )
    env = {"PYTHONPATH": str(package.parents[1]), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("sha256:") and result.stdout.split()[1] == "vllm"
