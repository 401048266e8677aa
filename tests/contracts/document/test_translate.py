"""One contract, several engines (issue 23 point 6): `render(doc, engine=E)` of a contract
written for another engine translates it to E's newest release; each setting E cannot hold
is dropped and named in a note; a method or asset E cannot run refuses the render."""

from __future__ import annotations

import copy

import pytest

from contracts_app.document import ContractError, import_command, render, validate_document
from contracts_app.document.archived import translations
from tests.support.documents import EAGLE_HEAD, base
from tests.support.rules import on_engine


def _notes(engine: str, doc: dict) -> list[str]:
    return render(validate_document(doc), engine).notes


def test_a_vllm_ngram_window_is_dropped_for_sglang_and_llamacpp_with_a_note() -> None:
    doc = base()  # vLLM 0.24.0 ngram, prompt_lookup_min 2 / max 5
    sglang = render(validate_document(doc), "sglang")
    assert (
        sglang.notes[0]
        == "translated from a contract written for vLLM 0.24.0: the rules of SGLang 0.5.23 hold"
    )
    dropped = [n for n in sglang.notes if n.startswith("lossy:")]
    assert any("dropped speculation.params.prompt_lookup_min (2)" in n for n in dropped), dropped
    assert any("dropped speculation.params.prompt_lookup_max (5)" in n for n in dropped), dropped
    assert any("sgl-project/sglang#21225" in n for n in dropped), dropped  # why: the window was removed
    assert "--speculative-ngram-min-match-window-size" not in sglang.argv
    llama = render(validate_document(doc), "llamacpp")
    dropped = [n for n in llama.notes if n.startswith("lossy:")]
    # llama.cpp matches one n-gram length: the minimum goes, the maximum is its lookup length.
    assert [n for n in dropped if "dropped speculation.params.prompt_lookup_min (2)" in n], dropped
    assert not [n for n in dropped if "dropped speculation.params.prompt_lookup_max" in n], dropped
    assert llama.argv[llama.argv.index("--spec-ngram-simple-size-n") + 1] == "5"


def test_a_translation_that_loses_nothing_says_only_where_it_came_from() -> None:
    doc = base()
    doc["speculation"]["params"] = {"prompt_lookup_max": 5, "prompt_lookup_min": 5}
    notes = _notes("llamacpp", doc)
    assert not [n for n in notes if n.startswith("lossy:")], notes


def test_a_token_schedule_and_a_verifier_are_dropped_where_the_engine_has_none() -> None:
    doc = base()
    doc["target"]["engine_version"] = "0.33.0"
    doc["speculation"] = {"method": "eagle3", "num_speculative_tokens": 4, "verifier": "block"}
    doc["speculation"]["params"] = {
        "token_schedule": [
            {"up_to_batch_size": 8, "num_speculative_tokens": 4},
            {"up_to_batch_size": 32, "num_speculative_tokens": 0},
        ]
    }
    doc["assets"] = [copy.deepcopy(EAGLE_HEAD)]
    out = render(validate_document(doc), "sglang")
    dropped = [n for n in out.notes if n.startswith("lossy:")]
    assert any("dropped speculation.params.token_schedule (2 steps)" in n for n in dropped), dropped
    assert "--speculative-use-block-verification" in out.argv  # SGLang 0.5.23 has block verification
    llama = render(validate_document(doc), "llamacpp")
    assert any("dropped speculation.verifier (block)" in n for n in llama.notes), llama.notes


def test_a_method_the_engine_cannot_run_refuses_the_render_naming_the_field() -> None:
    doc = base()
    doc["speculation"] = {"method": "eagle3", "num_speculative_tokens": 4}
    doc["assets"] = [copy.deepcopy(EAGLE_HEAD)]
    with pytest.raises(ContractError) as info:
        render(validate_document(doc), "tgi")
    assert [e.path for e in info.value.errors] == ["speculation.method"]


def test_a_translated_render_imports_back_on_the_new_engine() -> None:
    out = render(validate_document(base()), "sglang")
    imported = import_command("sglang", out.argv)
    assert imported.document["speculation"]["method"] == "ngram"
    assert imported.document["speculation"]["num_speculative_tokens"] == 5


def test_a_tgi_route_translates_to_vllm_and_sglang() -> None:
    doc = on_engine(base(), "tgi")
    doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 3}
    vllm = render(validate_document(doc), "vllm")
    assert vllm.config["method"] == "ngram" and vllm.config["num_speculative_tokens"] == 3
    assert vllm.notes[0].startswith("translated from a contract written for TGI")
    sglang = render(validate_document(doc), "sglang")
    assert "NGRAM" in sglang.argv


def test_an_archived_tgi_medusa_route_is_told_where_it_cannot_go() -> None:
    doc = on_engine(base(), "tgi")
    doc["speculation"] = {"method": "medusa", "num_speculative_tokens": 3}
    doc["assets"] = [{"role": "medusa_heads", "name": "org/target-medusa", "revision": "abc1234"}]
    found = {t.engine: t for t in translations(validate_document(doc))}
    assert set(found) >= {"vllm", "sglang"}
    # vLLM 0.33.0 dropped medusa; SGLang never ran it: neither render is made up.
    assert found["vllm"].shell is None and any("0.33.0" in r for r in found["vllm"].refused)
    assert found["sglang"].shell is None and found["sglang"].refused[0].startswith("speculation.method")
