"""llama.cpp's stacked `--spec-type a,b` (issue 23): the method's own type first, then
n-gram types tried in order when it drafts nothing (ggml-org/llama.cpp common/speculative.h,
#22838). `speculation.params.fallback_types` holds them: validated per build, diffed as
route-identity, rendered back to the same comma list and imported from it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts_app.document import (
    ContractError,
    diff_documents,
    import_command,
    normalize,
    render,
    validate_document,
)
from tests.support.documents import base, error_at
from tests.support.rules import on_engine

PATH = "speculation.params.fallback_types"


def _mtp(version: str | None = "b11434", fallbacks: list[str] | None = None) -> dict[str, Any]:
    doc = on_engine(base(), "llamacpp")
    doc["target"] = {"model": "Qwen3.6-27B-Q4_K_S.gguf", "engine": "llamacpp"}
    if version:
        doc["target"]["engine_version"] = version
    doc["compatibility"]["tokenizer"] = {"name": "Qwen/Qwen3.6-27B"}
    doc["speculation"] = {"method": "mtp", "num_speculative_tokens": 2}
    if fallbacks is not None:
        doc["speculation"]["params"] = {"fallback_types": fallbacks}
    doc["assets"] = []
    return doc


@pytest.mark.parametrize("version", ["b9246", "b11434", None])
def test_a_stacked_list_renders_as_one_comma_list_and_imports_back(version: str | None) -> None:
    doc = validate_document(_mtp(version, ["ngram-mod", "ngram-simple"]))
    out = render(doc)
    i = out.argv.index("--spec-type")
    assert out.argv[i + 1] == "draft-mtp,ngram-mod,ngram-simple", out.argv
    assert out.config["spec_type"] == "draft-mtp,ngram-mod,ngram-simple"
    imported = import_command("llamacpp", out.argv, engine_version=version)
    assert imported.document["speculation"]["params"] == {"fallback_types": ["ngram-mod", "ngram-simple"]}
    assert render(validate_document(imported.document)).argv == out.argv


def test_an_ngram_method_with_a_fallback_keeps_its_own_flags() -> None:
    doc = _mtp()
    doc["speculation"] = {
        "method": "ngram",
        "num_speculative_tokens": 16,
        "params": {"ngram_variant": "map-k", "prompt_lookup_max": 8, "fallback_types": ["ngram-mod"]},
    }
    out = render(validate_document(doc))
    assert "ngram-map-k,ngram-mod" in out.argv and "--spec-ngram-map-k-size-n" in out.argv
    assert not any(w.startswith("--spec-ngram-mod-") for w in out.argv), out.argv


def test_builds_before_comma_lists_refuse_it_naming_the_first_that_reads_one() -> None:
    doc = _mtp("b8941", ["ngram-mod"])
    doc["speculation"]["method"] = "draft_model"
    doc["assets"] = [{"role": "draft", "name": "draft.gguf", "tokenizer": {"name": "Qwen/Qwen3.6-27B"}}]
    message = error_at(doc, PATH)
    assert "b9246" in message, message


def test_other_engines_refuse_a_fallback_list() -> None:
    doc = on_engine(base(), "vllm")
    doc["speculation"] = {
        "method": "ngram",
        "num_speculative_tokens": 4,
        "params": {"fallback_types": ["ngram-mod"]},
    }
    doc["assets"] = []
    assert "llama.cpp's" in error_at(doc, PATH)


@pytest.mark.parametrize(
    ("method", "variant", "fallbacks", "where", "says"),
    [
        ("mtp", None, ["ngram-mod", "ngram-mod"], f"{PATH}[1]", "listed twice"),
        ("ngram", "mod", ["ngram-mod"], f"{PATH}[0]", "the method's own type"),
        ("ngram", None, ["ngram-simple"], f"{PATH}[0]", "the method's own type"),
    ],
)
def test_a_type_already_tried_is_refused(
    method: str, variant: str | None, fallbacks: list[str], where: str, says: str
) -> None:
    doc = _mtp(fallbacks=fallbacks)
    doc["speculation"]["method"] = method
    if method == "ngram":
        doc["speculation"]["num_speculative_tokens"] = 16
    if variant:
        doc["speculation"]["params"]["ngram_variant"] = variant
    assert says in error_at(doc, where)


def test_only_ngram_types_can_be_fallbacks() -> None:
    with pytest.raises(ContractError) as info:
        validate_document(_mtp(fallbacks=["draft-simple"]))
    assert any(e.path.startswith(PATH) for e in info.value.errors)


def test_a_changed_fallback_list_is_a_route_identity_change() -> None:
    before = normalize(validate_document(_mtp(fallbacks=["ngram-mod"])))
    after_doc = copy.deepcopy(_mtp(fallbacks=["ngram-map-k"]))
    after = normalize(validate_document(after_doc))
    changes = diff_documents(before, after)
    assert changes and all(c.path.startswith(PATH) for c in changes), changes
    assert {c.impact for c in changes} == {"route-identity"}
    dropped = diff_documents(before, normalize(validate_document(_mtp())))
    assert [c.impact for c in dropped] == ["route-identity"], dropped


def test_translating_to_another_engine_drops_the_list_and_says_so() -> None:
    from contracts_app.document.adapters.translate import translate

    moved, notes = translate(validate_document(_mtp(fallbacks=["ngram-mod"])), "sglang")
    assert moved.speculation.params is None or moved.speculation.params.fallback_types is None
    assert any("fallback_types" in n for n in notes), notes


def test_a_type_named_twice_in_the_command_is_read_once_and_said() -> None:
    result = import_command(
        "llamacpp", "llama-server -m t.gguf --spec-type ngram-mod,ngram-simple,ngram-mod,ngram-simple"
    )
    assert result.document["speculation"]["params"] == {
        "ngram_variant": "mod",
        "fallback_types": ["ngram-simple"],
    }
    said = [e.message for e in result.unresolved if e.path == PATH]
    assert len(said) == 2 and all("listed again" in m for m in said), said
