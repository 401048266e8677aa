"""Engine rules, one per test: a document that breaks the rule is refused with a message
at the right path, and the nearest document that keeps it is accepted."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from contracts_app.document import SUPPORTED_METHODS, validate_document, validation_warnings
from tests.support.documents import DRAFT, EAGLE_HEAD, base, error_at, with_draft
from tests.support.rules import Doc, assert_rule, assert_valid, method, on_engine


def test_route_must_be_a_slug() -> None:
    bad, good = base(), base()
    bad["route"] = "Contract_Summaries"
    good["route"] = "contract-summaries-2"
    assert_rule(bad, good, "route", "slug")
    for wrong in ("-lead", "trail-", "a" * 65, "", "route\n"):
        bad["route"] = wrong
        assert error_at(bad, "route")


def test_method_none_takes_no_speculative_tokens() -> None:
    bad = method(base(), "none", tokens=4)
    good = method(base(), "none", tokens=None)
    assert_rule(bad, good, "speculation.num_speculative_tokens", "speculation is off")


def test_method_none_takes_no_params() -> None:
    bad = method(base(), "none", tokens=None, params={"prompt_lookup_max": 3})
    good = method(base(), "none", tokens=None)
    assert_rule(bad, good, "speculation.params", "takes no parameters")


def test_a_speculation_method_needs_its_token_count() -> None:
    bad = method(base(), "ngram", tokens=None)
    good = method(base(), "ngram", tokens=4)
    assert_rule(bad, good, "speculation.num_speculative_tokens", "needs the number of tokens")


def test_draft_model_needs_a_draft_asset() -> None:
    bad = method(base(), "draft_model", assets=[])
    good = method(base(), "draft_model", assets=[DRAFT])
    assert_rule(bad, good, "assets", "needs a draft asset")


@pytest.mark.parametrize("name", ["eagle", "eagle3"])
def test_eagle_methods_need_an_eagle_head(name: str) -> None:
    bad = method(base(), name, assets=[DRAFT])  # a draft is not an EAGLE head
    good = method(base(), name, assets=[EAGLE_HEAD])
    assert_rule(bad, good, "assets", "needs an eagle_head asset")


def test_medusa_needs_medusa_heads() -> None:
    heads = {"role": "medusa_heads", "name": "FasterDecoding/medusa-vicuna-7b-v1.3", "revision": "abc"}
    bad = method(base(), "medusa", assets=[])
    good = method(base(), "medusa", assets=[heads])
    assert_rule(bad, good, "assets", "needs a medusa_heads asset")


def test_mlp_speculator_needs_its_checkpoint() -> None:
    spec = {"role": "mlp_speculator", "name": "ibm-ai-platform/llama3-8b-accelerator", "revision": "abc"}
    bad = method(base(), "mlp_speculator", assets=[])
    good = method(base(), "mlp_speculator", assets=[spec])
    assert_rule(bad, good, "assets", "needs a mlp_speculator asset")


def test_each_asset_role_appears_once() -> None:
    second = dict(DRAFT, name="another/draft")
    bad = method(base(), "draft_model", assets=[DRAFT, second])
    good = method(base(), "draft_model", assets=[DRAFT])
    assert_rule(bad, good, "assets[1].role", "each role appears once")


def test_a_draft_must_name_its_tokenizer() -> None:
    untokenized = {k: v for k, v in DRAFT.items() if k != "tokenizer"}
    bad = method(base(), "draft_model", assets=[untokenized])
    good = method(base(), "draft_model", assets=[DRAFT])
    assert_rule(bad, good, "assets[0].tokenizer", "must name its tokenizer")


def test_a_draft_with_another_tokenizer_is_refused_on_vllm_without_the_mode() -> None:
    other = dict(DRAFT, tokenizer={"name": "Qwen/Qwen2.5-0.5B-Instruct"})
    bad = method(base(), "draft_model", assets=[other])
    message = error_at(bad, "assets[0].tokenizer")
    assert "differs from the target's" in message and "heterogeneous_vocab: true" in message
    good = method(base(), "draft_model", assets=[other], params={"heterogeneous_vocab": True})
    # use_heterogeneous_vocab arrived in vLLM 0.25.0 (it was a "recent releases" warning before).
    assert "0.25.0" in error_at(copy.deepcopy(good), "speculation.params.heterogeneous_vocab")
    good["target"]["engine_version"] = "0.25.0"
    assert_valid(good)
    assert not any(
        w.path == "speculation.params.heterogeneous_vocab"
        for w in validation_warnings(validate_document(good))
    )


def test_a_draft_tokenizer_revision_mismatch_counts_as_another_tokenizer() -> None:
    other = dict(DRAFT, tokenizer={"name": DRAFT["tokenizer"]["name"], "revision": "0000000"})
    bad = method(base(), "draft_model", assets=[other])
    assert "differs" in error_at(bad, "assets[0].tokenizer")
    unpinned = dict(DRAFT, tokenizer={"name": DRAFT["tokenizer"]["name"]})  # nothing to compare: same name
    assert_valid(method(base(), "draft_model", assets=[unpinned]))


def test_transformers_universal_assisted_decoding_allows_another_tokenizer() -> None:
    other = dict(DRAFT, tokenizer={"name": "Qwen/Qwen2.5-0.5B-Instruct"})
    bad = on_engine(method(base(), "draft_model", assets=[other]), "transformers")
    good = on_engine(
        method(base(), "draft_model", assets=[other], params={"heterogeneous_vocab": True}), "transformers"
    )
    assert_rule(bad, good, "assets[0].tokenizer", "universal assisted decoding")


@pytest.mark.parametrize("engine", ["sglang", "llamacpp"])
def test_engines_without_a_heterogeneous_mode_refuse_another_tokenizer(engine: str) -> None:
    other = dict(DRAFT, tokenizer={"name": "Qwen/Qwen2.5-0.5B-Instruct"})
    bad = on_engine(
        method(base(), "draft_model", assets=[other], params={"heterogeneous_vocab": True}), engine
    )
    assert "no heterogeneous-vocabulary mode" in error_at(bad, "speculation.params.heterogeneous_vocab")
    assert "has no mode for a draft with another vocabulary" in error_at(bad, "assets[0].tokenizer")
    assert_valid(on_engine(method(base(), "draft_model", assets=[DRAFT]), engine))


def test_heterogeneous_vocab_applies_to_draft_model_only() -> None:
    bad = method(base(), "ngram", params={"heterogeneous_vocab": True})
    good = method(base(), "ngram", params={"prompt_lookup_max": 3})
    assert_rule(bad, good, "speculation.params.heterogeneous_vocab", "draft_model only")


def test_ngram_lookup_min_cannot_exceed_max() -> None:
    bad = method(base(), "ngram", params={"prompt_lookup_min": 6, "prompt_lookup_max": 5})
    good = method(base(), "ngram", params={"prompt_lookup_min": 5, "prompt_lookup_max": 5})
    assert_rule(bad, good, "speculation.params.prompt_lookup_min", "larger than prompt_lookup_max (5)")


def test_prompt_lookup_applies_to_ngram_only() -> None:
    bad = method(base(), "draft_model", assets=[DRAFT], params={"prompt_lookup_max": 4})
    good = method(base(), "draft_model", assets=[DRAFT])
    assert_rule(bad, good, "speculation.params.prompt_lookup_max", "ngram only")


def test_ngram_variants_are_llamacpps() -> None:
    bad = method(base(), "ngram", params={"ngram_variant": "mod"})
    good = on_engine(method(base(), "ngram", params={"ngram_variant": "mod"}), "llamacpp")
    assert_rule(bad, good, "speculation.params.ngram_variant", "llama.cpp")


def test_early_exit_needs_its_layer() -> None:
    bad = on_engine(method(base(), "early_exit"), "transformers")
    good = on_engine(method(base(), "early_exit", params={"early_exit_layer": 6}), "transformers")
    assert_rule(bad, good, "speculation.params.early_exit_layer", "needs the layer")


def test_early_exit_layer_applies_to_early_exit_only() -> None:
    bad = method(base(), "ngram", params={"early_exit_layer": 6})
    good = method(base(), "ngram")
    assert_rule(bad, good, "speculation.params.early_exit_layer", "early_exit only")


def test_eagle_tree_settings_are_sglangs() -> None:
    bad = method(base(), "eagle3", assets=[EAGLE_HEAD], params={"eagle_topk": 4})
    good = on_engine(method(base(), "eagle3", assets=[EAGLE_HEAD], params={"eagle_topk": 4}), "sglang")
    assert_rule(bad, good, "speculation.params.eagle_topk", "SGLang")
    bad_method = on_engine(method(base(), "ngram", params={"num_draft_tokens": 8}), "sglang")
    assert "not ngram" in error_at(bad_method, "speculation.params.num_draft_tokens")


def test_tgi_runs_only_medusa_mlp_speculators_and_ngram() -> None:
    bad = on_engine(method(base(), "eagle3", assets=[EAGLE_HEAD]), "tgi")
    good = on_engine(method(base(), "ngram"), "tgi")
    # TGI also loads MLP speculators since 2.0.3 (#1865): the old message left them out.
    assert_rule(bad, good, "speculation.method", "TGI runs medusa, mlp_speculator, ngram")
    assert_rule(
        on_engine(with_draft(), "tgi"), good, "speculation.method", "TGI cannot run method draft_model"
    )


@pytest.mark.parametrize(
    ("engine", "unsupported"),
    [
        ("vllm", "early_exit"),
        ("sglang", "medusa"),
        ("sglang", "suffix"),
        ("llamacpp", "medusa"),
        ("transformers", "eagle"),
    ],
)
def test_a_method_the_engine_cannot_run_is_refused(engine: str, unsupported: str) -> None:
    assets = {"medusa": [{"role": "medusa_heads", "name": "m", "revision": "r"}], "eagle": [EAGLE_HEAD]}.get(
        unsupported, []
    )
    params = {"early_exit_layer": 4} if unsupported == "early_exit" else None
    bad = on_engine(method(base(), unsupported, assets=assets, params=params), engine)
    assert f"cannot run method {unsupported}" in error_at(bad, "speculation.method")
    assert_valid(on_engine(method(base(), "ngram"), engine))


def test_the_engine_tables_match_the_research() -> None:
    assert SUPPORTED_METHODS["tgi"] == {"none", "medusa", "mlp_speculator", "ngram"}
    assert {"draft_model", "eagle3", "mtp", "ngram"} <= SUPPORTED_METHODS["llamacpp"]
    assert "early_exit" in SUPPORTED_METHODS["transformers"] and "early_exit" not in SUPPORTED_METHODS["vllm"]
    assert {"eagle", "eagle3", "mtp", "draft_model", "ngram"} <= SUPPORTED_METHODS["sglang"]


def test_transformers_speculation_runs_batch_size_one() -> None:
    bad = on_engine(method(base(), "ngram"), "transformers")
    bad["compatibility"]["batching"]["max_batch_size"] = 8
    good = on_engine(method(base(), "ngram"), "transformers")
    assert_rule(bad, good, "compatibility.batching.max_batch_size", "batch size 1 only")
    plain = on_engine(method(base(), "none", tokens=None), "transformers")
    plain["compatibility"]["batching"]["max_batch_size"] = 8
    assert_valid(plain)  # without speculation, Transformers batches


def test_vllm_disable_by_batch_size_is_at_least_two() -> None:
    bad, good = base(), base()
    for doc in (bad, good):  # only the V0 engine (before 0.10.0) acts on disable_by_batch_size
        doc["target"]["engine_version"] = "0.9.2"
    bad["compatibility"]["batching"]["speculation_off_above_batch_size"] = 1
    good["compatibility"]["batching"]["speculation_off_above_batch_size"] = 2
    assert_rule(bad, good, "compatibility.batching.speculation_off_above_batch_size", "at least 2")


MUTATIONS: list[tuple[str, Callable[[Doc], Doc]]] = [
    ("mtp needs no asset", lambda d: method(d, "mtp")),
    ("suffix on vllm", lambda d: method(d, "suffix", tokens=8)),
]


@pytest.mark.parametrize(("label", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_methods_without_a_second_checkpoint_need_no_asset(label: str, mutate: Callable[[Doc], Doc]) -> None:
    assert_valid(mutate(base()))


SCHEDULE = [
    {"up_to_batch_size": 4, "num_speculative_tokens": 5},
    {"up_to_batch_size": 32, "num_speculative_tokens": 2},
]


def test_a_token_schedule_is_vllms() -> None:
    bad = on_engine(method(base(), "ngram", tokens=5, params={"token_schedule": SCHEDULE}), "sglang")
    good = method(base(), "ngram", tokens=5, params={"token_schedule": SCHEDULE})
    assert_rule(bad, good, "speculation.params.token_schedule", "vLLM's")


def test_a_token_schedule_goes_from_small_to_large_batches() -> None:
    bad = method(base(), "ngram", tokens=5, params={"token_schedule": list(reversed(SCHEDULE))})
    good = method(base(), "ngram", tokens=5, params={"token_schedule": SCHEDULE})
    assert_rule(bad, good, "speculation.params.token_schedule[1].up_to_batch_size", "smaller to larger")


def test_a_token_schedule_stays_within_the_token_count() -> None:
    bad = method(base(), "ngram", tokens=4, params={"token_schedule": SCHEDULE})
    good = method(base(), "ngram", tokens=5, params={"token_schedule": SCHEDULE})
    assert_rule(bad, good, "speculation.params.token_schedule[0].num_speculative_tokens", "more than")
