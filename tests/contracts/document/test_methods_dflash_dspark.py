"""The block-diffusion drafters added in issue 23, per engine × release cell: the release
that first runs each (read from the engines' wheels and sources, engines/*.py) validates it,
the one before refuses it naming the release; each render uses only flags and keys that
release accepts; render → import → render is a fixed point; real command lines import."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from contracts_app.document import import_command, render, validate_document
from contracts_app.document.engines import release_view
from tests.support.documents import DRAFT, base, error_at
from tests.support.rules import on_engine

DFLASH_DRAFT = {**copy.deepcopy(DRAFT), "name": "z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat"}

# (engine, method, the first release that runs it, the release before it in the table)
CELLS = [
    ("vllm", "dflash", "0.20.0", "0.19.0"),
    ("vllm", "dspark", "0.28.0", "0.26.0"),
    ("sglang", "dflash", "0.5.23", "0.5.10"),
    ("sglang", "dspark", "0.5.23", "0.5.10"),
    ("llamacpp", "dflash", "b11434", "b9246"),
    ("llamacpp", "dspark", "b11434", "b9246"),
]


def _doc(engine: str, method: str, version: str | None, with_draft: bool = True) -> dict[str, Any]:
    doc = on_engine(base(), engine)
    if engine == "llamacpp":
        doc["target"] = {"model": "llama-3.1-8b-instruct-q4_k_m.gguf", "engine": "llamacpp"}
        doc["compatibility"]["tokenizer"] = {"name": "meta-llama/Llama-3.1-8B-Instruct"}
    doc["target"].pop("engine_version", None)
    if version:
        doc["target"]["engine_version"] = version
    doc["speculation"] = {"method": method, "num_speculative_tokens": 7}
    draft = copy.deepcopy(DFLASH_DRAFT)
    draft["tokenizer"] = copy.deepcopy(doc["compatibility"]["tokenizer"])
    if engine == "llamacpp":
        draft.pop("revision")
        draft["name"] = "llama-3.1-8b-dflash.gguf"
    doc["assets"] = [draft] if with_draft else []
    return doc


def _rendered_words(engine: str, argv: list[str], config: dict[str, Any]) -> set[str]:
    """The flags (and for vLLM the --speculative-config keys) a render uses."""
    words = {w for w in argv if w.startswith("-")}
    if engine == "vllm":
        words |= set(config)
    return words


@pytest.mark.parametrize(("engine", "method", "first", "before"), CELLS)
def test_the_first_release_that_runs_it_validates_and_the_one_before_refuses(
    engine: str, method: str, first: str, before: str
) -> None:
    validate_document(_doc(engine, method, first))
    message = error_at(_doc(engine, method, before), "speculation.method")
    assert f"cannot run method {method}" in message and first in message, message


@pytest.mark.parametrize(("engine", "method", "first", "before"), CELLS)
@pytest.mark.parametrize("version", ["first", None])
def test_each_render_uses_only_words_the_release_accepts_and_imports_back(
    engine: str, method: str, first: str, before: str, version: str | None
) -> None:
    doc = validate_document(_doc(engine, method, first if version else None))
    view = release_view(engine, doc.target.engine_version)
    out = render(doc)
    unknown = _rendered_words(engine, out.argv, out.config) - view.accepted - {"-m", "-md", "--metrics"}
    if engine == "sglang":
        unknown -= {"--model-path", "--enable-metrics"}
    assert not unknown, (unknown, out.argv)
    imported = import_command(engine, out.argv, engine_version=doc.target.engine_version)
    assert imported.document["speculation"]["method"] == method
    assert imported.document["speculation"]["num_speculative_tokens"] == 7
    assert [a["name"] for a in imported.document["assets"]] == [doc.assets[0].name]
    again = render(validate_document(imported.document))
    assert (again.argv, again.config) == (out.argv, out.config)


def test_vllm_renders_dflash_with_its_drafter_as_model() -> None:
    out = render(validate_document(_doc("vllm", "dflash", "0.33.0")))
    assert out.config == {
        "method": "dflash",
        "model": "z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat",
        "revision": DRAFT["revision"],
        "num_speculative_tokens": 7,
    }


def test_sglang_tells_dflash_its_verify_window_and_dspark_its_block_size() -> None:
    dflash = render(validate_document(_doc("sglang", "dflash", "0.5.23"))).argv
    assert dflash[dflash.index("--speculative-algorithm") + 1] == "DFLASH"
    assert dflash[dflash.index("--speculative-num-draft-tokens") + 1] == "8"  # anchor + 7 drafted
    dspark = render(validate_document(_doc("sglang", "dspark", "0.5.23"))).argv
    assert dspark[dspark.index("--speculative-dspark-block-size") + 1] == "7"
    assert "--speculative-num-draft-tokens" not in dspark


def test_llamacpp_renders_draft_dflash_with_the_drafter_and_its_token_count() -> None:
    argv = render(validate_document(_doc("llamacpp", "dflash", "b11434"))).argv
    assert argv[argv.index("--spec-type") + 1] == "draft-dflash"
    assert argv[argv.index("-md") + 1] == "llama-3.1-8b-dflash.gguf"
    assert argv[argv.index("--spec-draft-n-max") + 1] == "7"


def test_dflash_needs_its_drafter_and_dspark_may_run_from_the_target_checkpoint() -> None:
    message = error_at(_doc("vllm", "dflash", "0.33.0", with_draft=False), "assets")
    assert "dflash needs a draft asset" in message
    validate_document(_doc("vllm", "dspark", "0.33.0", with_draft=False))
    for engine, version in (("sglang", "0.5.23"), ("llamacpp", "b11434")):
        message = error_at(_doc(engine, "dspark", version, with_draft=False), "assets")
        assert "runs DSpark from a drafter checkpoint" in message


# Real command lines, cited; the expected fields written by hand.
def test_the_dflash_readme_vllm_line_imports() -> None:
    # z-lab/dflash README.md (commit 0a2da2366b9bf74a014fc9b648dfc2615dacbfb7), "Quick Start: vLLM".
    config = '{"method": "dflash", "model": "z-lab/Qwen3.5-27B-DFlash", "num_speculative_tokens": 15}'
    command = f"""vllm serve Qwen/Qwen3.5-27B \\
  --speculative-config '{config}' \\
  --attention-backend flash_attn \\
  --max-num-batched-tokens 32768"""
    result = import_command("vllm", command)
    assert result.document["speculation"] == {"method": "dflash", "num_speculative_tokens": 15}
    assert result.document["assets"] == [
        {"role": "draft", "name": "z-lab/Qwen3.5-27B-DFlash", "tokenizer": {"name": "Qwen/Qwen3.5-27B"}}
    ]


def test_the_vllm_issue_dflash_line_imports() -> None:
    # vllm-project/vllm#52258 (quoted verbatim; it was refused before issue 23).
    command = """vllm serve Qwen/Qwen3.6-27B --speculative-config '{"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "num_speculative_tokens": 10, "max_model_len": 12288}'"""  # noqa: E501
    result = import_command("vllm", command)
    assert result.document["speculation"] == {"method": "dflash", "num_speculative_tokens": 10}
    assert [a["name"] for a in result.document["assets"]] == ["z-lab/Qwen3.6-27B-DFlash"]
    assert any("max_model_len" in u.message for u in result.unresolved)


def test_the_dflash_readme_sglang_line_imports() -> None:
    # z-lab/dflash README.md (commit 0a2da2366b9bf74a014fc9b648dfc2615dacbfb7), "Quick Start: SGLang".
    command = """python -m sglang.launch_server \\
    --model-path Qwen/Qwen3.5-35B-A3B \\
    --speculative-algorithm DFLASH \\
    --speculative-draft-model-path z-lab/Qwen3.5-35B-A3B-DFlash \\
    --speculative-num-draft-tokens 16 \\
    --tp-size 1 \\
    --attention-backend trtllm_mha \\
    --speculative-draft-attention-backend fa4 \\
    --mem-fraction-static 0.75 \\
    --mamba-scheduler-strategy extra_buffer \\
    --trust-remote-code"""
    result = import_command("sglang", command)
    # The verify window of 16 holds the anchor and 15 drafted tokens.
    # The draft's attention backend is an SGLang knob (engines/params.py), kept.
    assert result.document["speculation"] == {
        "method": "dflash",
        "num_speculative_tokens": 15,
        "params": {"engine": {"speculative_draft_attention_backend": "fa4"}},
    }
    assert result.document["assets"] == [
        {
            "role": "draft",
            "name": "z-lab/Qwen3.5-35B-A3B-DFlash",
            "tokenizer": {"name": "Qwen/Qwen3.5-35B-A3B"},
        }
    ]
    config = json.dumps(render(_valid(result.document)).config)
    assert '"speculative_num_draft_tokens": 16' in config


def _valid(document: dict[str, Any]) -> Any:
    doc = copy.deepcopy(document)
    fill = base()
    doc["lanes"], doc["measurement"] = fill["lanes"], fill["measurement"]
    return validate_document(doc)
