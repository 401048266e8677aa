"""Importing hand-written command lines: what the import says it cannot know, the module
form of vLLM, refusals, and the command lines FACTS.md records."""

from __future__ import annotations

import json

import pytest

from contracts_app.document import (
    ContractError,
    import_command,
    validate_document,
)


def test_importing_a_hand_written_vllm_command_says_what_it_cannot_know() -> None:
    argv = [
        "vllm",
        "serve",
        "Qwen/Qwen2.5-32B-Instruct",
        "--speculative-config",
        json.dumps(
            {
                "model": "Qwen/Qwen2.5-0.5B-Instruct",
                "num_speculative_tokens": 4,
                "draft_tensor_parallel_size": 1,
            }
        ),
        "--gpu-memory-utilization",
        "0.9",
        "--enforce-eager",
    ]
    result = import_command("vllm", argv)
    unresolved = {e.path: e.message for e in result.unresolved}
    for path in ("lanes", "measurement", "rollback", "target.engine_version", "target.revision", "route"):
        assert path in unresolved, path
    assert "vLLM infers it" in unresolved["speculation.method"]
    assert "assets[role=draft].revision" in unresolved
    ignored = [e.message for e in result.unresolved if e.path == "argv"]
    assert any("--gpu-memory-utilization 0.9" in m for m in ignored)
    assert any("--enforce-eager" in m for m in ignored)
    # A speculative_config key the contract's fields do not cover is an engine knob now.
    assert result.document["speculation"]["params"] == {"engine": {"draft_tensor_parallel_size": 1}}
    doc = validate_document(result.document)
    assert doc.speculation.method == "draft_model" and doc.asset("draft") is not None
    assert doc.lanes.allowed == [] and doc.measurement.workloads == {}


def test_importing_the_python_module_form_of_vllm() -> None:
    result = import_command(
        "vllm",
        ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m/x", "--max-num-seqs", "4"],
    )
    assert result.document["target"]["model"] == "m/x"
    assert result.document["compatibility"]["batching"]["max_batch_size"] == 4


@pytest.mark.parametrize(
    ("engine", "argv", "fragment"),
    [
        ("vllm", ["vllm", "serve"], "no model"),
        ("vllm", ["vllm", "serve", "m", "--speculative-config", "{nope"], "not valid JSON"),
        ("vllm", ["vllm", "serve", "m", "--max-num-seqs", "many"], "whole number"),
        ("tgi", ["text-generation-launcher", "--speculate", "2"], "no model"),
        (
            "sglang",
            [
                "python",
                "-m",
                "sglang.launch_server",
                "--model-path",
                "m",
                "--speculative-algorithm",
                "LOOKAHEAD",
            ],
            "no contract method",
        ),
        ("llamacpp", ["llama-server", "-m", "m.gguf", "--spec-type", "eagle3"], "needs a draft model"),
        ("transformers", ["transformers-generate"], "no model"),
    ],
)
def test_a_command_that_cannot_be_imported_is_refused(engine: str, argv: list[str], fragment: str) -> None:
    with pytest.raises(ContractError) as info:
        import_command(engine, argv)
    assert info.value.errors[0].path == "argv"
    assert fragment in info.value.errors[0].message


def test_importing_a_llamacpp_command_from_facts() -> None:
    argv = [
        "llama-server",
        "-m",
        "gemma-3-270m-q4_k_m.gguf",
        "--spec-type",
        "ngram-simple",
        "--spec-draft-n-max",
        "10",
        "--metrics",
    ]
    result = import_command("llamacpp", argv)
    doc = validate_document(result.document)
    assert doc.route == "gemma-3-270m-q4-k-m"
    # ngram-simple drafts --spec-ngram-simple-size-m tokens (default 48): --spec-draft-n-max is
    # read for draft-* types only (measured on b11434: /metrics lists size-m positions).
    assert doc.speculation.method == "ngram" and doc.speculation.num_speculative_tokens == 48
    ignored = " ".join(e.message for e in result.unresolved if e.path == "argv")
    assert "--metrics" in ignored and "--spec-draft-n-max 10 is not read for this speculation type" in ignored
