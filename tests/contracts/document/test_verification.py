"""`speculation.verifier` and the contract's `verification` (issue 23): a verifier must be
one the release can be told (vLLM rejection_sample_method values by release, SGLang's
verifier flags); a lossy verifier (synthetic, FLy) needs `verification: lossy`; a lossy
contract needs an output-quality rule; `verification` is route identity in the diff, and
writing the defaults out keeps the digest."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts_app.document import (
    diff_documents,
    document_digest,
    import_command,
    render,
    validate_document,
)
from tests.support.documents import EAGLE_HEAD, base, error_at
from tests.support.rules import on_engine


def _eagle(engine: str = "vllm", version: str | None = "0.33.0", **spec: Any) -> dict[str, Any]:
    doc = on_engine(base(), engine)
    doc["target"].pop("engine_version", None)
    if version:
        doc["target"]["engine_version"] = version
    doc["speculation"] = {"method": "eagle3", "num_speculative_tokens": 4, **spec}
    doc["assets"] = [dict(EAGLE_HEAD)]
    return doc


def _lossy(doc: dict[str, Any]) -> dict[str, Any]:
    doc["verification"] = "lossy"
    return doc


# (engine, verifier, the first release the table read with it, one before it)
RELEASES = [
    ("vllm", "block", "0.25.0", "0.24.0"),
    ("vllm", "fly", "0.33.0", "0.30.0"),
    ("vllm", "synthetic", "0.20.0", "0.19.0"),
    ("sglang", "rejection_sampling", "0.5.23", "0.5.10"),
    ("sglang", "block", "0.5.23", "0.5.10"),
]


def _with(engine: str, verifier: str, version: str) -> dict[str, Any]:
    doc = _eagle(engine, version, verifier=verifier)
    if verifier == "synthetic":
        doc["speculation"]["params"] = {"synthetic_acceptance_length": 2.5}
    if verifier in ("fly", "synthetic"):
        _lossy(doc)
    return doc


@pytest.mark.parametrize(("engine", "verifier", "first", "before"), RELEASES)
def test_a_verifier_runs_from_the_release_that_has_it(
    engine: str, verifier: str, first: str, before: str
) -> None:
    validate_document(_with(engine, verifier, first))
    message = error_at(_with(engine, verifier, before), "speculation.verifier")
    assert f"has no {verifier} verifier" in message and first in message, message


@pytest.mark.parametrize(("engine", "verifier", "first", "before"), RELEASES)
def test_a_verifier_renders_in_the_release_spelling_and_imports_back(
    engine: str, verifier: str, first: str, before: str
) -> None:
    doc = validate_document(_with(engine, verifier, first))
    out = render(doc)
    if engine == "vllm":
        assert out.config["rejection_sample_method"] == verifier
    else:
        assert f"--speculative-use-{verifier.replace('_', '-')}" in out.argv or (
            verifier == "block" and "--speculative-use-block-verification" in out.argv
        )
    imported = import_command(engine, out.argv, engine_version=first)
    assert imported.document["speculation"]["verifier"] == verifier
    assert imported.document.get("verification") == ("lossy" if verifier in ("fly", "synthetic") else None)


def test_llamacpp_and_tgi_have_no_choice_of_verifier() -> None:
    for engine in ("llamacpp", "tgi"):
        doc = on_engine(base(), engine)
        doc["speculation"]["verifier"] = "block"
        if engine == "llamacpp":
            doc["speculation"]["params"] = {"prompt_lookup_max": 5}
        else:
            doc["speculation"].pop("params")
        assert "has no block verifier" in error_at(doc, "speculation.verifier")


def test_a_lossy_verifier_without_verification_lossy_is_refused_naming_both() -> None:
    doc = _eagle(verifier="fly")
    message = error_at(doc, "verification")
    assert "speculation.verifier fly is lossy" in message and "verification: lossy" in message
    validate_document(_lossy(doc))


def test_a_lossy_contract_without_an_output_quality_rule_is_refused() -> None:
    doc = _lossy(_eagle(verifier="fly"))
    del doc["measurement"]["output_stability"]
    assert "output-quality rule" in error_at(doc, "measurement.output_stability")
    plain = _lossy(_eagle())  # declared lossy with the standard verifier: the rule is still required
    del plain["measurement"]["output_stability"]
    assert "output-quality rule" in error_at(plain, "measurement.output_stability")


def test_a_lossy_contract_must_allow_greedy_decoding_for_its_rule_to_be_measured() -> None:
    doc = _lossy(_eagle(verifier="fly"))
    doc["compatibility"]["decoding"] = {"modes": ["sampling"], "temperature_max": 1.0}
    assert "allow greedy decoding" in error_at(doc, "compatibility.decoding.modes")


def test_fly_needs_two_tokens_and_synthetic_its_acceptance_length() -> None:
    doc = _lossy(_eagle(verifier="fly"))
    doc["speculation"]["num_speculative_tokens"] = 1
    assert "at least 2" in error_at(doc, "speculation.verifier")
    synthetic = _lossy(_eagle("vllm", "0.33.0", verifier="synthetic"))
    assert "mean acceptance length" in error_at(synthetic, "speculation.params.synthetic_acceptance_length")
    synthetic["speculation"]["params"] = {"synthetic_acceptance_length": 6.0}
    assert "[1, 5]" in error_at(synthetic, "speculation.params.synthetic_acceptance_length")


def test_sglang_verifiers_need_a_chain() -> None:
    doc = _eagle("sglang", "0.5.23", verifier="rejection_sampling")
    doc["speculation"]["params"] = {"eagle_topk": 4, "num_draft_tokens": 8}
    assert "--speculative-eagle-topk 1" in error_at(doc, "speculation.verifier")


def test_method_none_has_nothing_to_verify() -> None:
    doc = base()
    doc["speculation"] = {"method": "none", "verifier": "block"}
    assert "nothing to verify" in error_at(doc, "speculation.verifier")


def test_the_defaults_written_out_are_the_same_contract() -> None:
    plain = base()
    spelled = base()
    spelled["verification"] = "lossless"
    spelled["speculation"]["verifier"] = "standard"
    assert document_digest(validate_document(plain)) == document_digest(validate_document(spelled))
    assert diff_documents(plain, spelled) == []


def test_verification_and_verifier_are_route_identity_in_the_diff() -> None:
    old = _eagle()
    new = _lossy(_eagle(verifier="fly"))
    changes = {c.path: c.impact for c in diff_documents(old, new)}
    assert changes == {"verification": "route-identity", "speculation.verifier": "route-identity"}


def test_imports_of_the_engine_default_stay_lossless() -> None:
    config = {"method": "eagle3", "model": "org/head", "num_speculative_tokens": 3}
    for value in ("standard",):
        argv = ["vllm", "serve", "org/target", "--speculative-config"]
        result = import_command("vllm", [*argv, json.dumps({**config, "rejection_sample_method": value})])
        assert "verifier" not in result.document["speculation"]
        assert "verification" not in result.document


def test_a_real_fly_command_imports_as_lossy() -> None:
    # vLLM 0.33.0 vllm/config/speculative.py: rejection_sample_method 'fly' with its window keys.
    command = """vllm serve org/target --speculative-config '{"method": "eagle3", "model": "org/head", "num_speculative_tokens": 6, "rejection_sample_method": "fly"}'"""  # noqa: E501
    result = import_command("vllm", command)
    assert result.document["verification"] == "lossy"
    assert result.document["speculation"]["verifier"] == "fly"
    assert any(u.path == "verification" and "output_stability" in u.message for u in result.unresolved)
