"""Engine adapters: the rendered commands are the engines' own flags, and every render
imports back to a contract that renders to the same argv."""

from __future__ import annotations

import copy
import json
import shlex
from typing import Any

import pytest

from contracts_app.document import (
    ENGINES,
    ContractError,
    import_command,
    render,
    validate_document,
)
from tests.support.documents import DRAFT, EAGLE_HEAD, base, example_paths, load_example

RENDERABLE = {
    # Translated for another engine: a setting it cannot hold (a token schedule, a lookup
    # window) is dropped with a note (issue 23); TGI runs no draft model, Transformers batch
    # size 1 only.
    "agent-draft-model-vllm.yaml": {"vllm", "sglang", "llamacpp", "trtllm"},
    "contract-summaries-ngram.yaml": {"vllm", "tgi", "sglang", "llamacpp", "trtllm"},
    "doc-review-ngram-tgi.yaml": {"vllm", "tgi", "sglang", "llamacpp", "trtllm"},
    "local-gemma-prompt-lookup.yaml": {"vllm", "tgi", "sglang", "llamacpp", "transformers", "trtllm"},
    "support-chat-eagle3.yaml": {"vllm", "sglang", "llamacpp", "trtllm"},
}


# The translations that drop a setting, and the setting each drops (named in a note).
LOSSY = {
    ("agent-draft-model-vllm.yaml", "sglang"): ["speculation.params.token_schedule"],
    ("agent-draft-model-vllm.yaml", "llamacpp"): ["speculation.params.token_schedule"],
    ("contract-summaries-ngram.yaml", "tgi"): [
        "speculation.params.prompt_lookup_min",
        "speculation.params.prompt_lookup_max",
    ],
    ("contract-summaries-ngram.yaml", "sglang"): [
        "speculation.params.prompt_lookup_min",
        "speculation.params.prompt_lookup_max",
    ],
    ("contract-summaries-ngram.yaml", "llamacpp"): ["speculation.params.prompt_lookup_min"],
    # TensorRT-LLM's NGram has only max_matching_ngram_size.
    ("contract-summaries-ngram.yaml", "trtllm"): ["speculation.params.prompt_lookup_min"],
}


def round_trip(doc_data: dict[str, Any], engine: str) -> list[str]:
    first = render(validate_document(doc_data), engine)
    assert first.engine == engine
    assert first.shell == shlex.join(first.argv) and shlex.split(first.shell) == first.argv
    # A command line does not say its release; the contract's (for its own engine) is given.
    same = doc_data["target"]["engine"] == engine
    imported = import_command(
        engine,
        first.argv,
        engine_version=doc_data["target"].get("engine_version") if same else None,
        files=first.files or None,  # the YAML a TensorRT-LLM command names
    )
    again = render(validate_document(imported.document), engine)
    assert again.argv == first.argv, f"\n{first.shell}\n{again.shell}"
    assert again.config == first.config
    return first.argv


@pytest.mark.parametrize("name", [p.name for p in example_paths()])
@pytest.mark.parametrize("engine", ENGINES)
def test_examples_round_trip_on_every_engine_they_can_run_on(name: str, engine: str) -> None:
    data = load_example(name)
    if engine in RENDERABLE[name]:
        round_trip(data, engine)
        notes = render(validate_document(data), engine).notes
        dropped = [n.rsplit(": dropped ", 1)[1].split(" (")[0] for n in notes if n.startswith("lossy:")]
        assert dropped == LOSSY.get((name, engine), []), notes
    else:
        with pytest.raises(ContractError) as info:
            render(validate_document(data), engine)
        assert info.value.errors and all(e.path for e in info.value.errors)


def test_vllm_renders_the_speculative_config_json() -> None:
    result = render(validate_document(load_example("support-chat-eagle3.yaml")))
    assert result.argv[:3] == ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
    assert result.argv[3:5] == ["--revision", "0e9e39f249a16976918f6564b8830bc894c89659"]
    config = json.loads(result.argv[result.argv.index("--speculative-config") + 1])
    assert (
        config
        == result.config
        == {
            "method": "eagle3",
            "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
            "revision": "6b3a2c1e4f0d9a8b7c6d5e4f3a2b1c0d9e8f7a6b",
            "num_speculative_tokens": 3,
        }
    )
    assert result.argv[-2:] == ["--max-num-seqs", "128"]
    assert any("concurrency" in note for note in result.notes)


def test_vllm_ngram_carries_the_lookup_window() -> None:
    result = render(validate_document(load_example("contract-summaries-ngram.yaml")))
    assert result.config == {
        "method": "ngram",
        "num_speculative_tokens": 5,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 5,
    }


def test_vllm_renders_the_agent_token_schedule_per_batch_size() -> None:
    result = render(validate_document(load_example("agent-draft-model-vllm.yaml")))
    # vLLM's schedule is inclusive [start, end, k]: no speculative tokens above batch 8.
    assert result.config["num_speculative_tokens_per_batch_size"] == [[1, 8, 4], [9, 64, 0]]
    assert "disable_by_batch_size" not in result.config


def test_transformers_renders_generate_kwargs() -> None:
    result = render(validate_document(load_example("local-gemma-prompt-lookup.yaml")))
    assert result.config == {"prompt_lookup_num_tokens": 10, "do_sample": False}
    assert result.argv == [
        "transformers-generate",
        "--model",
        "google/gemma-3-270m",
        "--revision",
        "gguf:q4_k_m",
        "prompt_lookup_num_tokens=10",
        "do_sample=False",
    ]


def test_tgi_renders_speculate() -> None:
    result = render(validate_document(load_example("doc-review-ngram-tgi.yaml")))
    assert result.argv == [
        "text-generation-launcher",
        "--model-id",
        "mistralai/Mistral-7B-Instruct-v0.3",
        "--revision",
        "e0bc86c23ce5aae1db576c8cca6f06f1f73af2db",
        "--speculate",
        "2",
        "--max-concurrent-requests",
        "16",
    ]


def _doc(
    engine: str,
    spec: dict[str, Any],
    assets: list[dict[str, Any]] | None = None,
    batch: int = 8,
    version: str | None = None,
) -> dict[str, Any]:
    doc = base()
    doc["target"]["engine"] = engine
    if engine != "vllm":
        doc["target"].pop("engine_version")  # base() names a vLLM release
    if version:
        doc["target"]["engine_version"] = version
    doc["speculation"] = spec
    doc["assets"] = copy.deepcopy(assets or [])
    doc["compatibility"]["batching"] = {"max_batch_size": batch}
    if batch == 1:
        doc["compatibility"]["max_concurrency"] = 1
        del doc["measurement"]["improve"][0]["max_concurrency"]
    return doc


MEDUSA = {
    "role": "medusa_heads",
    "name": "text-generation-inference/Mistral-7B-Instruct-v0.2-medusa",
    "revision": "abc",
}
OTHER_VOCAB_DRAFT = dict(
    DRAFT, name="Qwen/Qwen2.5-0.5B-Instruct", tokenizer={"name": "Qwen/Qwen2.5-0.5B-Instruct"}
)

HANDMADE: dict[str, dict[str, Any]] = {
    "vllm-mtp": _doc("vllm", {"method": "mtp", "num_speculative_tokens": 1}),
    "vllm-suffix": _doc("vllm", {"method": "suffix", "num_speculative_tokens": 16}),
    "vllm-medusa": _doc("vllm", {"method": "medusa", "num_speculative_tokens": 3}, [MEDUSA]),
    "vllm-mlp": _doc(
        "vllm",
        {"method": "mlp_speculator", "num_speculative_tokens": 3},
        [{"role": "mlp_speculator", "name": "ibm/acc", "revision": "r1"}],
    ),
    "vllm-hetero-draft": _doc(
        "vllm",
        {"method": "draft_model", "num_speculative_tokens": 4, "params": {"heterogeneous_vocab": True}},
        [OTHER_VOCAB_DRAFT],
        version="0.25.0",
    ),
    "vllm-none": _doc("vllm", {"method": "none"}),
    "vllm-token-schedule": _doc(
        "vllm",
        {
            "method": "eagle3",
            "num_speculative_tokens": 5,
            "params": {
                "token_schedule": [
                    {"up_to_batch_size": 2, "num_speculative_tokens": 5},
                    {"up_to_batch_size": 8, "num_speculative_tokens": 3},
                    {"up_to_batch_size": 64, "num_speculative_tokens": 0},
                ]
            },
        },
        [EAGLE_HEAD],
        batch=64,
    ),
    "tgi-medusa": _doc("tgi", {"method": "medusa", "num_speculative_tokens": 3}, [MEDUSA]),
    "tgi-none": _doc("tgi", {"method": "none"}),
    "sglang-eagle-tree": _doc(
        "sglang",
        {"method": "eagle", "num_speculative_tokens": 5, "params": {"eagle_topk": 4, "num_draft_tokens": 16}},
        [EAGLE_HEAD],
    ),
    "sglang-mtp": _doc("sglang", {"method": "mtp", "num_speculative_tokens": 3}),
    "sglang-standalone": _doc("sglang", {"method": "draft_model", "num_speculative_tokens": 4}, [DRAFT]),
    "sglang-ngram": _doc(
        "sglang",
        {
            "method": "ngram",
            "num_speculative_tokens": 8,
            "params": {"prompt_lookup_min": 1, "prompt_lookup_max": 12},
        },
        version="0.5.9",  # the match-window flags went in 0.5.10 (sgl-project/sglang#21225)
    ),
    "llamacpp-ngram-mod": _doc(
        "llamacpp",
        {
            "method": "ngram",
            "num_speculative_tokens": 16,
            "params": {"ngram_variant": "mod", "prompt_lookup_max": 12},
        },
    ),
    "llamacpp-draft": _doc("llamacpp", {"method": "draft_model", "num_speculative_tokens": 8}, [DRAFT]),
    "transformers-hetero-draft": _doc(
        "transformers",
        {"method": "draft_model", "num_speculative_tokens": 5, "params": {"heterogeneous_vocab": True}},
        [OTHER_VOCAB_DRAFT],
        batch=1,
    ),
    "transformers-draft": _doc(
        "transformers", {"method": "draft_model", "num_speculative_tokens": 5}, [DRAFT], batch=1
    ),
    "transformers-early-exit": _doc(
        "transformers",
        {"method": "early_exit", "num_speculative_tokens": 5, "params": {"early_exit_layer": 6}},
        batch=1,
    ),
    "transformers-ngram-window": _doc(
        "transformers",
        {"method": "ngram", "num_speculative_tokens": 3, "params": {"prompt_lookup_max": 3}},
        batch=1,
    ),
}


@pytest.mark.parametrize("label", sorted(HANDMADE))
def test_handmade_contracts_round_trip(label: str) -> None:
    doc = HANDMADE[label]
    round_trip(doc, doc["target"]["engine"])


def test_tgi_medusa_launches_the_heads_repository() -> None:
    result = render(validate_document(HANDMADE["tgi-medusa"]))
    assert result.argv[1:5] == ["--model-id", MEDUSA["name"], "--revision", "abc"]
    imported = import_command("tgi", result.argv)
    assert imported.document["speculation"]["method"] == "medusa"
    assert "target.model" in {e.path for e in imported.unresolved}


def test_sglang_renders_the_eagle_tree() -> None:
    argv = render(validate_document(HANDMADE["sglang-eagle-tree"])).argv
    shell = shlex.join(argv)
    assert (
        "--speculative-algorithm EAGLE --speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
        in shell
    )
    assert "--speculative-num-steps 5 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16" in shell
    mtp = render(validate_document(HANDMADE["sglang-mtp"])).argv
    assert "NEXTN" in mtp and "--speculative-draft-model-path" not in mtp


def test_llamacpp_renders_spec_type_and_draft() -> None:
    argv = render(validate_document(HANDMADE["llamacpp-draft"])).argv
    assert argv == [
        "llama-server",
        "-m",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--spec-type",
        "draft-simple",
        "-md",
        DRAFT["name"],
        "--spec-draft-n-max",
        "8",
        "--parallel",
        "8",
        "--metrics",  # the worker reads /metrics (issue 10)
    ]
    assert "ngram-mod" in render(validate_document(HANDMADE["llamacpp-ngram-mod"])).argv


def test_transformers_universal_assisted_decoding_passes_both_tokenizers() -> None:
    result = render(validate_document(HANDMADE["transformers-hetero-draft"]))
    assert result.config["assistant_model"] == "Qwen/Qwen2.5-0.5B-Instruct"
    assert result.config["tokenizer"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert result.config["assistant_tokenizer"] == "Qwen/Qwen2.5-0.5B-Instruct"
    assert "do_sample" not in result.config  # greedy and sampling both allowed: per request
    early = render(validate_document(HANDMADE["transformers-early-exit"])).config
    assert early == {"assistant_early_exit": 6, "num_assistant_tokens": 5}


def test_a_vllm_tokenizer_other_than_the_model_is_passed() -> None:
    doc = base()
    doc["compatibility"]["tokenizer"] = {"name": "org/tokenizer", "revision": "t1"}
    argv = round_trip(doc, "vllm")
    assert argv[argv.index("--tokenizer") + 1] == "org/tokenizer"
    assert argv[argv.index("--tokenizer-revision") + 1] == "t1"


def test_render_refuses_an_engine_the_method_cannot_run_on() -> None:
    with pytest.raises(ContractError) as info:
        render(validate_document(load_example("support-chat-eagle3.yaml")), "tgi")
    assert [e.path for e in info.value.errors] == ["speculation.method"]
    with pytest.raises(ContractError) as info:
        render(validate_document(base()), "triton")
    assert info.value.errors[0].path == "engine"


def test_vllm_token_schedule_becomes_inclusive_ranges() -> None:
    config = render(validate_document(HANDMADE["vllm-token-schedule"])).config
    assert config["num_speculative_tokens_per_batch_size"] == [[1, 2, 5], [3, 8, 3], [9, 64, 0]]
