"""Engine knobs with a home (issue 23 point 2): `speculation.params.engine` and
`speculation.env` are checked against the engine's table for the release the contract names,
diffed by what they change, rendered in that release's spelling, and a render imports back to
the same command."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from contracts_app.document import (
    contract_json_schema,
    diff_documents,
    import_command,
    render,
    speculation_off,
    validate_document,
)
from contracts_app.document.engines import KNOWLEDGE, params_readme
from contracts_app.document.engines.params import PARAMS, Param, spelling_in
from tests.support.documents import DRAFT, EAGLE_HEAD, base, error_at

Doc = dict[str, Any]
LLAMA_DRAFT = {"role": "draft", "name": "draft.gguf", "tokenizer": {"name": "target.gguf"}}


def on(engine: str, version: str | None, method: str, **spec: Any) -> Doc:
    doc = base()
    doc["target"]["engine"] = engine
    doc["target"].pop("engine_version")
    if version:
        doc["target"]["engine_version"] = version
    doc["speculation"] = {"method": method, "num_speculative_tokens": 3, **spec}
    doc["assets"] = []
    if method == "draft_model":
        doc["assets"] = [copy.deepcopy(LLAMA_DRAFT if engine == "llamacpp" else DRAFT)]
        if engine == "llamacpp":
            doc["target"]["model"] = "target.gguf"
            doc["compatibility"]["tokenizer"] = {"name": "target.gguf"}
    if method in ("eagle", "eagle3"):
        doc["assets"] = [copy.deepcopy(EAGLE_HEAD)]
    return doc


def knobs(**values: Any) -> dict[str, Any]:
    return {"params": {"engine": values}}


# Validation, per engine and release.


def test_an_unknown_engine_param_is_refused_naming_the_engines_params() -> None:
    doc = on("llamacpp", "b11434", "draft_model", **knobs(draft_p_minimum=0.5))
    message = error_at(doc, "speculation.params.engine.draft_p_minimum")
    assert "not a llama.cpp speculation setting SpecPact knows" in message and "draft_p_min" in message


def test_tgi_has_no_engine_params() -> None:
    doc = on("tgi", None, "ngram", **knobs(draft_p_min=0.5))
    assert "TGI has none" in error_at(doc, "speculation.params.engine.draft_p_min")


def test_a_param_the_named_release_does_not_have_is_refused_naming_the_release() -> None:
    # draft_sample_method is a SpeculativeConfig field from vLLM 0.21.0 (engines/vllm.py).
    bad = on("vllm", "0.20.0", "draft_model", **knobs(draft_sample_method="probabilistic"))
    message = error_at(bad, "speculation.params.engine.draft_sample_method")
    assert "vLLM 0.20.0 cannot be told it" in message and "0.21.0 and later" in message
    validate_document(on("vllm", "0.21.0", "draft_model", **knobs(draft_sample_method="probabilistic")))


def test_a_removed_param_is_refused_on_the_releases_after_it() -> None:
    # speculative_token_tree: vLLM 0.9.0 to before 0.21.0.
    tree = "[(0,), (1,), (0, 0)]"
    validate_document(on("vllm", "0.20.0", "eagle", **knobs(speculative_token_tree=tree)))
    message = error_at(
        on("vllm", "0.21.0", "eagle", **knobs(speculative_token_tree=tree)),
        "speculation.params.engine.speculative_token_tree",
    )
    assert "0.9.0 to before 0.21.0" in message


@pytest.mark.parametrize(
    ("engine", "name", "value", "fragment"),
    [
        ("llamacpp", "draft_p_min", 1.5, "a number from 0 to 1"),
        ("llamacpp", "draft_p_min", "high", "takes a number"),
        ("llamacpp", "draft_threads", 2.5, "an integer"),
        ("vllm", "draft_sample_method", "random", "one of greedy, probabilistic"),
        ("vllm", "draft_tensor_parallel_size", 0, "an integer from 1 to 1024"),
        ("vllm", "enforce_eager", "yes", "true or false"),
        ("sglang", "speculative_attention_mode", "fast", "one of prefill, decode"),
        ("llamacpp", "draft_backend_sampling", False, "false is the engine's default"),
    ],
)
def test_a_param_value_of_the_wrong_type_or_range_is_refused(
    engine: str, name: str, value: Any, fragment: str
) -> None:
    method = "eagle" if engine == "sglang" else "draft_model"
    doc = on(engine, None, method, **knobs(**{name: value}))
    assert fragment in error_at(doc, f"speculation.params.engine.{name}")


def test_a_param_of_another_method_is_refused() -> None:
    doc = on("sglang", None, "eagle", **knobs(speculative_ngram_max_bfs_breadth=4))
    assert "applies to method ngram" in error_at(
        doc, "speculation.params.engine.speculative_ngram_max_bfs_breadth"
    )


def test_speculation_env_is_checked_by_engine_and_value() -> None:
    good = on("sglang", None, "eagle", env={"SGLANG_ENABLE_SPEC_V2": "1"})
    validate_document(good)
    bad = on("sglang", None, "eagle", env={"SGLANG_ENABLE_SPEC_V2": "maybe"})
    assert "true or false" in error_at(bad, "speculation.env.SGLANG_ENABLE_SPEC_V2")
    other = on("vllm", None, "draft_model", env={"SGLANG_ENABLE_SPEC_V2": "1"})
    assert "VLLM_USE_V2_MODEL_RUNNER" in error_at(other, "speculation.env.SGLANG_ENABLE_SPEC_V2")


def test_speculation_off_takes_no_env() -> None:
    doc = base()
    doc["speculation"] = {"method": "none", "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"}}
    assert "method none" in error_at(doc, "speculation.env")


def test_the_schema_publishes_both_homes() -> None:
    schema = contract_json_schema()
    assert "engine" in schema["$defs"]["SpeculationParams"]["properties"]
    env = schema["$defs"]["Speculation"]["properties"]["env"]
    assert "SGLANG_ENABLE_SPEC_V2" in env["description"]


# Diff: what a knob changes decides the impact.


@pytest.mark.parametrize(
    ("engine", "method", "before", "after", "impact"),
    [
        (
            "vllm",
            "draft_model",
            {"draft_tensor_parallel_size": 1},
            {"draft_tensor_parallel_size": 2},
            "policy",
        ),
        ("vllm", "draft_model", {}, {"draft_sample_method": "probabilistic"}, "route-identity"),
        ("llamacpp", "draft_model", {"draft_p_min": 0.5}, {"draft_p_min": 0.75}, "route-identity"),
        ("llamacpp", "draft_model", {}, {"draft_gpu_layers": "99"}, "policy"),
        ("sglang", "eagle", {}, {"speculative_accept_threshold_single": 0.5}, "route-identity"),
    ],
)
def test_a_knob_change_is_classed_by_what_it_changes(
    engine: str, method: str, before: dict[str, Any], after: dict[str, Any], impact: str
) -> None:
    old = on(engine, None, method, **(knobs(**before) if before else {}))
    new = on(engine, None, method, **knobs(**after))
    changes = diff_documents(old, new)
    assert changes and {c.impact for c in changes} == {impact}, changes
    assert all(c.path.startswith("speculation.params.engine.") for c in changes)


def test_an_env_change_is_classed_by_what_the_variable_changes() -> None:
    old = on("sglang", None, "ngram")
    placement = diff_documents(old, on("sglang", None, "ngram", env={"SGLANG_ENABLE_SPEC_V2": "1"}))
    assert [(c.path, c.impact) for c in placement] == [("speculation.env.SGLANG_ENABLE_SPEC_V2", "policy")]
    outputs = diff_documents(old, on("sglang", None, "ngram", env={"SGLANG_NGRAM_FORCE_GREEDY_VERIFY": "1"}))
    assert [c.impact for c in outputs] == ["route-identity"]


# Render in the release's spelling, and back.


def test_llamacpp_renders_params_as_the_builds_flags() -> None:
    doc = on("llamacpp", "b11434", "draft_model", **knobs(draft_p_min=0.75, draft_gpu_layers="99"))
    argv = render(validate_document(doc)).argv
    assert argv[argv.index("--spec-draft-p-min") + 1] == "0.75"
    assert argv[argv.index("--spec-draft-ngl") + 1] == "99"
    old = copy.deepcopy(doc)
    old["target"]["engine_version"] = "b8941"
    argv = render(validate_document(old)).argv
    # Before #22397 the same settings were --draft-p-min and --gpu-layers-draft.
    assert argv[argv.index("--draft-p-min") + 1] == "0.75" and "--gpu-layers-draft" in argv
    assert "--spec-draft-p-min" not in argv


def test_vllm_renders_params_as_speculative_config_keys() -> None:
    doc = on(
        "vllm", "0.33.0", "draft_model", **knobs(draft_tensor_parallel_size=2, draft_sample_method="greedy")
    )
    result = render(validate_document(doc))
    config = json.loads(result.argv[result.argv.index("--speculative-config") + 1])
    assert config["draft_tensor_parallel_size"] == 2 and config["draft_sample_method"] == "greedy"


def test_env_renders_before_the_command_and_in_its_own_mapping() -> None:
    doc = on("sglang", None, "eagle", env={"SGLANG_ENABLE_SPEC_V2": "True"})
    result = render(validate_document(doc))
    assert result.env == {"SGLANG_ENABLE_SPEC_V2": "True"} == result.as_dict()["env"]
    assert result.shell.startswith("SGLANG_ENABLE_SPEC_V2=True python -m sglang.launch_server ")
    assert "SGLANG_ENABLE_SPEC_V2" not in " ".join(result.argv)


FIXED_POINT = [
    on(
        "llamacpp",
        "b11434",
        "draft_model",
        **knobs(draft_p_min=0.75, draft_p_split=0.1, draft_device="CUDA1"),
    ),
    on(
        "llamacpp",
        "b11434",
        "mtp",
        **knobs(draft_p_min=0.5, draft_backend_sampling=True, draft_sampling="greedy"),
    ),
    on("llamacpp", "b8941", "draft_model", **knobs(draft_p_min=0.6, draft_cache_type_k="q8_0")),
    on(
        "vllm",
        "0.33.0",
        "draft_model",
        env={"VLLM_USE_V2_MODEL_RUNNER": "1"},
        **knobs(draft_tensor_parallel_size=1),
    ),
    on(
        "vllm",
        "0.12.0",
        "suffix",
        **knobs(suffix_decoding_max_tree_depth=32, suffix_decoding_min_token_prob=0.2),
    ),
    on("vllm", "0.20.0", "eagle", **knobs(speculative_token_tree="[(0,), (1,), (0, 0)]")),
    on(
        "sglang",
        None,
        "eagle",
        env={"SGLANG_ENABLE_SPEC_V2": "1"},
        **knobs(speculative_accept_threshold_single=0.5, speculative_attention_mode="decode"),
    ),
    on(
        "sglang",
        "0.5.7",
        "ngram",
        **knobs(speculative_ngram_match_type="PROB", speculative_ngram_capacity=1000),
    ),
]


@pytest.mark.parametrize(
    "doc", FIXED_POINT, ids=lambda d: f"{d['target']['engine']}-{d['speculation']['method']}"
)
def test_render_import_render_is_a_fixed_point_for_params_and_env(doc: Doc) -> None:
    first = render(validate_document(doc))
    # The shell form carries the environment (`VAR=value cmd`), as a person pastes it.
    imported = import_command(doc["target"]["engine"], first.shell, doc["target"].get("engine_version"))
    spec = imported.document["speculation"]
    assert spec.get("params", {}).get("engine") == doc["speculation"]["params"]["engine"]
    assert spec.get("env") == doc["speculation"].get("env")
    again = render(validate_document(imported.document))
    assert (again.argv, again.env, again.shell) == (first.argv, first.env, first.shell)


def test_the_readme_lists_the_knobs_as_the_tables_have_them() -> None:
    text = params_readme.README.read_text(encoding="utf-8")
    block = params_readme.current_block(text)
    assert block == params_readme.generated_block(), (
        "run: python -m contracts_app.document.engines.params_readme"
    )
    assert (
        "`draft_p_min` | a number from 0 to 1 | `--spec-draft-p-min` b9246+; `--draft-p-min` before b8942"
        in block
    )


def _sample(p: Param) -> Any:
    """A valid value of each knob that is not its engine's default."""
    if p.type == "choice":
        return p.choices[-1]
    if p.type == "bool":
        return True
    if p.type == "int":
        return int(p.minimum or 0) + 2
    if p.type == "float":
        return 0.5
    return "[(0,), (1,)]" if p.name == "speculative_token_tree" else "q8_0"


def _cases() -> list[tuple[str, str, Param]]:
    cases = []
    for engine, params in PARAMS.items():
        k = KNOWLEDGE[engine]
        for p in params:
            # The newest release read whose table spells the knob, for each of its spellings.
            for spelling in p.spellings:
                for release, _ in reversed(k.releases):
                    if spelling_in(k.view(release), p) == spelling:
                        cases.append((engine, release, p))
                        break
    return cases


_DEFAULT_METHOD = {"vllm": "draft_model", "sglang": "eagle", "llamacpp": "draft_model"}


@pytest.mark.parametrize(("engine", "release", "knob"), _cases(), ids=lambda v: getattr(v, "name", str(v)))
def test_every_knob_renders_in_its_releases_spelling_and_imports_back(
    engine: str, release: str, knob: Any
) -> None:
    method = knob.methods[0] if knob.methods else _DEFAULT_METHOD[engine]
    if engine == "vllm" and method == "draft_model" and release in ("0.10.0", "0.11.0", "0.12.0"):
        method = "eagle"  # vLLM 0.10.0-0.14.x refuse draft_model
    doc = on(engine, release, method, **knobs(**{knob.name: _sample(knob)}))
    first = render(validate_document(doc))
    spelled = spelling_in(KNOWLEDGE[engine].view(release), knob)
    assert spelled is not None
    written = first.config if knob.kind == "key" else first.argv
    assert spelled in written, (spelled, first.shell)
    imported = import_command(engine, first.shell, release)
    assert imported.document["speculation"]["params"]["engine"] == {knob.name: _sample(knob)}, [
        (e.path, e.message) for e in imported.unresolved
    ]
    again = render(validate_document(imported.document))
    assert again.argv == first.argv


def test_the_speculation_off_rollback_drops_knobs_and_env() -> None:
    doc = on(
        "sglang",
        None,
        "eagle",
        env={"SGLANG_ENABLE_SPEC_V2": "1"},
        **knobs(speculative_attention_mode="decode"),
    )
    off = speculation_off(doc)
    assert off["speculation"] == {"method": "none"}
    validate_document(off)
