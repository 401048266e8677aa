"""TensorRT-LLM (issue 23 point 1 and 5): the table by release, the render (trtllm-serve and
the YAML it names), the import of real command lines and YAML files copied from
NVIDIA/TensorRT-LLM's own docs (each cited), and render → import → render fixed points."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from contracts_app.document import ContractError, import_command, render, validate_document
from contracts_app.document.engines import KNOWLEDGE, release_view
from tests.support.documents import EAGLE_HEAD, base

EXAMPLE = "docs/examples/support-chat-eagle3-trtllm.yaml"


def _example() -> dict[str, Any]:
    with open(EXAMPLE, encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    return data


def _trt(
    version: str | None, speculation: dict[str, Any], assets: list[dict[str, Any]] | None = None
) -> dict:
    doc = base()
    doc["target"] = {"model": "org/target", "revision": "abc1234", "engine": "trtllm"}
    if version:
        doc["target"]["engine_version"] = version
    doc["speculation"] = speculation
    doc["assets"] = assets or []
    return doc


def _errors(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ContractError) as info:
        validate_document(data)
    return {e.path: e.message for e in info.value.errors}


# The table -------------------------------------------------------------------------


def test_the_table_knows_two_release_ranges_and_what_each_runs() -> None:
    assert [r for r, _ in KNOWLEDGE["trtllm"].releases] == ["1.2.1", "1.3.0"]
    assert release_view("trtllm", "1.2.1").methods == {"mtp", "eagle3", "ngram", "draft_model"}
    assert release_view("trtllm", "1.3.0").methods == {
        "mtp",
        "eagle3",
        "ngram",
        "draft_model",
        "suffix",
        "dflash",
        "dspark",
    }
    newest = release_view("trtllm", None)
    assert {"PARD", "SA", "DFlash", "DSpark"} <= set(newest.names("method"))
    assert "--config" in newest.accepted and "--config" not in release_view("trtllm", "1.2.1").accepted


def test_the_shipped_example_validates_with_no_warning() -> None:
    from contracts_app.document import validation_warnings

    doc = validate_document(_example())
    assert doc.target.engine == "trtllm"
    assert validation_warnings(doc) == []


# Render ----------------------------------------------------------------------------


def test_the_example_renders_trtllm_serve_and_its_yaml() -> None:
    result = render(validate_document(_example()))
    assert result.argv == [
        "trtllm-serve",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--revision",
        "0e9e39f249a16976918f6564b8830bc894c89659",
        "--max_batch_size",
        "64",
        "--config",
        "speculative.yaml",
    ]
    assert (
        yaml.safe_load(result.files["speculative.yaml"])
        == result.config
        == {
            "speculative_config": {
                "decoding_type": "Eagle3",
                "max_draft_len": 3,
                "speculative_model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
                "draft_len_schedule": {8: 3, 32: 1},
                "acceptance_rate_window_size": 64,
                "acceptance_rate_threshold": 0.25,
            },
            "return_perf_metrics": True,
            "enable_iter_perf_stats": True,
        }
    )
    assert any("drafts nothing above batch size 32" in n for n in result.notes)
    assert any("takes no revision" in n for n in result.notes)


def test_release_1_2_1_is_given_its_own_flag_and_no_key_it_lacks() -> None:
    doc = validate_document(_trt("1.2.1", {"method": "mtp", "num_speculative_tokens": 1}))
    result = render(doc)
    assert result.argv[-2:] == ["--extra_llm_api_options", "speculative.yaml"]
    assert result.config == {
        "speculative_config": {"decoding_type": "MTP", "max_draft_len": 1},
        "return_perf_metrics": True,
    }


def test_the_batch_cut_off_is_max_concurrency_and_pard_its_own_decoding_type() -> None:
    data = _trt(
        "1.3.0",
        {"method": "draft_model", "num_speculative_tokens": 4, "params": {"parallel_drafting": True}},
        [{"role": "draft", "name": "amd/PARD-Llama-3.2-1B", "tokenizer": {"name": "org/target"}}],
    )
    data["compatibility"]["batching"] = {"max_batch_size": 64, "speculation_off_above_batch_size": 16}
    data["compatibility"]["tokenizer"] = {"name": "org/target"}
    spec = render(validate_document(data)).config["speculative_config"]
    assert spec == {
        "decoding_type": "PARD",
        "max_draft_len": 4,
        "speculative_model": "amd/PARD-Llama-3.2-1B",
        "max_concurrency": 16,
    }


def test_without_speculation_there_is_no_yaml() -> None:
    result = render(validate_document(_trt("1.3.0", {"method": "none"})))
    assert result.files == {} and result.config == {}
    assert "--config" not in result.argv


# Rules -----------------------------------------------------------------------------


def test_the_engines_own_validators_are_the_contracts() -> None:
    # draft_len_schedule[smallest] must equal max_draft_len (validate_draft_len_schedule_and_sort).
    schedule = [{"up_to_batch_size": 4, "num_speculative_tokens": 2}]
    found = _errors(
        _trt("1.3.0", {"method": "mtp", "num_speculative_tokens": 3, "params": {"token_schedule": schedule}})
    )
    assert (
        "must start at max_draft_len" in found["speculation.params.token_schedule[0].num_speculative_tokens"]
    )
    # max_concurrency and draft_len_schedule are mutually exclusive.
    data = _trt(
        "1.3.0",
        {
            "method": "mtp",
            "num_speculative_tokens": 2,
            "params": {"token_schedule": [{"up_to_batch_size": 4, "num_speculative_tokens": 2}]},
        },
    )
    data["compatibility"]["batching"] = {"max_batch_size": 64, "speculation_off_above_batch_size": 8}
    assert "mutually exclusive" in _errors(data)["compatibility.batching.speculation_off_above_batch_size"]
    # PARD drafts with a draft model only.
    found = _errors(
        _trt(
            "1.3.0",
            {"method": "eagle3", "num_speculative_tokens": 3, "params": {"parallel_drafting": True}},
            [EAGLE_HEAD],
        )
    )
    assert "PARD draft model" in found["speculation.params.parallel_drafting"]


def test_the_acceptance_cutoff_needs_a_release_and_an_engine_that_has_it() -> None:
    cutoff = {
        "method": "mtp",
        "num_speculative_tokens": 1,
        "acceptance_cutoff": {"window": 32, "min_rate": 0.3},
    }
    found = _errors(_trt("1.2.1", copy.deepcopy(cutoff)))
    assert "TensorRT-LLM 1.2.1" in found["speculation.acceptance_cutoff"]
    assert (
        "acceptance_rate_window_size exists in TensorRT-LLM 1.3.0 and later"
        in found["speculation.acceptance_cutoff"]
    )
    vllm = _trt(None, copy.deepcopy(cutoff))
    vllm["target"] = {
        "model": "org/target",
        "revision": "abc1234",
        "engine": "vllm",
        "engine_version": "0.24.0",
    }
    assert "vLLM has no such switch" in _errors(vllm)["speculation.acceptance_cutoff"]
    off = _trt("1.3.0", {"method": "none", "acceptance_cutoff": {"window": 32, "min_rate": 0.3}})
    assert "nothing to switch off" in _errors(off)["speculation.acceptance_cutoff"]


# Import: real command lines and YAML files from NVIDIA/TensorRT-LLM's docs -----------

# docs/source/features/speculative-decoding.md (commit 04c8822c): "Speculative decoding options
# must be specified via `--config config.yaml` for both `trtllm-bench` and `trtllm-serve`", and its
# EAGLE 3 example's model; the YAML is that page's first example, verbatim.
EAGLE3_CMD = "trtllm-serve meta-llama/Llama-3.1-8B-Instruct --config config.yaml"
EAGLE3_YAML = """# Using a HuggingFace Hub model ID (auto-downloaded)
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 4
  speculative_model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B
"""
# Same page: the dynamic tree and SA combination examples, and the speculative_model_dir alias.
DYNAMIC_TREE_YAML = """# Dynamic tree mode
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 6
  speculative_model: /path/to/eagle3_model
  use_dynamic_tree: true
  dynamic_tree_max_topK: 10
  max_total_draft_tokens: 60
  max_batch_size: 4
"""
SA_YAML = """# SA combination: enable Suffix Automaton enhancement with any supported technique
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 4
  speculative_model: /path/to/draft/model
  use_sa_spec: true
  sa_spec_threshold: 4
"""
ALIAS_YAML = """speculative_config:
  decoding_type: Eagle3
  max_draft_len: 4
  speculative_model_dir: /path/to/draft/model
"""
# docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-trtllm.md: the launch
# command and the part of its YAML the stored copy shows (it begins inside cuda_graph_config).
DEEPSEEK_CMD = """trtllm-serve deepseek-ai/DeepSeek-R1-0528 \\
    --host 0.0.0.0 \\
    --port 8000 \\
    --backend pytorch \\
    --max_batch_size 1024 \\
    --max_num_tokens 3200 \\
    --max_seq_len 2048 \\
    --kv_cache_free_gpu_memory_fraction 0.8 \\
    --tp_size 8 \\
    --ep_size 8 \\
    --trust_remote_code \\
    --extra_llm_api_options ${EXTRA_LLM_API_FILE}"""
DEEPSEEK_YAML = """cuda_graph_config:
  enable_padding: true
  max_batch_size: 128
kv_cache_config:
  dtype: fp8
stream_interval: 10
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: 1
moe_config:
  backend: DEEPGEMM
  max_num_tokens: 3200
"""
# docs/source/features/lora.md ("TRTLLM serve with LoRA"): no speculation. As printed there the
# first line ends without a `\`, so a shell runs `python -m tensorrt_llm.commands.serve` alone.
LORA_CMD = """python -m tensorrt_llm.commands.serve
     /path/to/model \\
    --config config.yaml"""
LORA_YAML = """lora_config:
  lora_target_modules: ['attn_q', 'attn_k', 'attn_v']
  max_lora_rank: 8
"""


def _said(result: Any, *fragments: str) -> bool:
    return any(all(f in e.message for f in fragments) for e in result.unresolved)


def test_the_eagle3_example_of_the_speculative_decoding_page() -> None:
    result = import_command("trtllm", EAGLE3_CMD, files={"config.yaml": EAGLE3_YAML})
    doc = result.document
    assert doc["speculation"] == {"method": "eagle3", "num_speculative_tokens": 4}
    assert doc["assets"] == [{"role": "eagle_head", "name": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}]
    assert doc["target"] == {"model": "meta-llama/Llama-3.1-8B-Instruct", "engine": "trtllm"}
    assert any(e.path == "target.engine_version" for e in result.unresolved)
    again = render(validate_document(doc))
    assert again.config["speculative_config"] == yaml.safe_load(EAGLE3_YAML)["speculative_config"]


def test_a_knob_the_contract_cannot_carry_is_named_not_a_refusal() -> None:
    result = import_command("trtllm", EAGLE3_CMD, files={"config.yaml": DYNAMIC_TREE_YAML})
    assert result.document["speculation"] == {"method": "eagle3", "num_speculative_tokens": 6}
    for key in ("use_dynamic_tree=true", "dynamic_tree_max_topK=10", "max_total_draft_tokens=60"):
        assert _said(result, key, "left out of the contract"), key
    assert _said(result, "max_batch_size=4", "not part of a contract")
    sa = import_command("trtllm", EAGLE3_CMD, files={"config.yaml": SA_YAML})
    assert _said(sa, "use_sa_spec=true", "left out of the contract")
    assert _said(sa, "sa_spec_threshold=4", "default")


def test_the_speculative_model_dir_alias() -> None:
    doc = import_command("trtllm", EAGLE3_CMD, files={"config.yaml": ALIAS_YAML}).document
    assert doc["assets"] == [{"role": "eagle_head", "name": "/path/to/draft/model"}]


def test_the_deepseek_r1_recipe_reads_mtp_from_its_yaml_named_by_a_variable() -> None:
    # ${EXTRA_LLM_API_FILE} is not set in the paste: the file is given by the name it has.
    result = import_command(
        "trtllm", DEEPSEEK_CMD, engine_version="1.2.1", files={"${EXTRA_LLM_API_FILE}": DEEPSEEK_YAML}
    )
    doc = result.document
    assert doc["speculation"] == {"method": "mtp", "num_speculative_tokens": 1}
    assert doc["compatibility"]["batching"]["max_batch_size"] == 1024
    assert doc["target"]["engine_version"] == "1.2.1"
    assert _said(result, "num_nextn_predict_layers is deprecated", "read as max_draft_len")
    for key in ("cuda_graph_config", "kv_cache_config", "moe_config", "stream_interval"):
        assert _said(result, f"YAML key {key}", "not part of a contract"), key
    for flag in ("--tp_size 8", "--ep_size 8", "--trust_remote_code", "--backend pytorch"):
        assert _said(result, flag, "not part of a contract"), flag
    validate_document(doc)


def test_the_lora_page_command_has_no_speculation() -> None:
    with pytest.raises(ContractError) as info:  # as printed: the model is on a command of its own
        import_command("trtllm", LORA_CMD, files={"config.yaml": LORA_YAML})
    assert "no model" in info.value.errors[0].message
    joined = LORA_CMD.replace("serve\n", "serve \\\n")
    result = import_command("trtllm", joined, files={"config.yaml": LORA_YAML})
    assert result.document["speculation"] == {"method": "none"}
    assert _said(result, "YAML key lora_config", "not part of a contract")


def test_a_command_that_names_a_file_not_given_is_refused_naming_it() -> None:
    with pytest.raises(ContractError) as info:
        import_command("trtllm", EAGLE3_CMD)
    assert "config.yaml" in info.value.errors[0].message
    with pytest.raises(ContractError) as other:
        import_command("vllm", "vllm serve org/m", files={"x.yaml": "a: 1"})
    assert other.value.errors[0].path == "files"


def test_a_decoding_type_the_format_has_no_name_for_refuses_the_import() -> None:
    for name in ("AUTO", "User_Provided", "SaveState"):
        files = {"c.yaml": f"speculative_config:\n  decoding_type: {name}\n  max_draft_len: 4\n"}
        with pytest.raises(ContractError) as info:
            import_command("trtllm", "trtllm-serve org/m --config c.yaml", files=files)
        assert any(name in e.message for e in info.value.errors)


def test_the_ngc_image_tag_names_the_release() -> None:
    # Handmade around the image name the NGC catalogue uses (nvcr.io/nvidia/tensorrt-llm/release:TAG).
    files = {
        "/cfg/spec.yaml": "speculative_config:\n  decoding_type: NGram\n  max_draft_len: 3\n"
        "  max_matching_ngram_size: 4\n"
    }
    cmd = (
        "docker run --rm --gpus all -v /cfg:/cfg nvcr.io/nvidia/tensorrt-llm/release:1.2.1 "
        "trtllm-llmapi-launch trtllm-serve org/m --extra_llm_api_options /cfg/spec.yaml"
    )
    doc = import_command("trtllm", cmd, files=files).document
    assert doc["target"]["engine_version"] == "1.2.1"
    assert doc["speculation"] == {
        "method": "ngram",
        "num_speculative_tokens": 3,
        "params": {"prompt_lookup_max": 4},
    }


# Round trips -----------------------------------------------------------------------

CELLS = [
    ({"method": "mtp", "num_speculative_tokens": 2}, []),
    ({"method": "eagle3", "num_speculative_tokens": 3}, [EAGLE_HEAD]),
    ({"method": "ngram", "num_speculative_tokens": 4, "params": {"prompt_lookup_max": 3}}, []),
    ({"method": "suffix", "num_speculative_tokens": 8}, []),
    # Block-diffusion drafters (1.3.0: DFlashDecodingConfig, DSparkDecodingConfig).
    (
        {"method": "dflash", "num_speculative_tokens": 7},
        [{"role": "draft", "name": "z-lab/Qwen3-8B-DFlash-b16", "tokenizer": {"name": "org/target"}}],
    ),
    (
        {"method": "dspark", "num_speculative_tokens": 5},
        [{"role": "draft", "name": "org/dspark-drafter", "tokenizer": {"name": "org/target"}}],
    ),
    (
        {"method": "draft_model", "num_speculative_tokens": 4, "params": {"parallel_drafting": True}},
        [{"role": "draft", "name": "org/pard", "tokenizer": {"name": "org/target"}}],
    ),
    (
        {
            "method": "draft_model",
            "num_speculative_tokens": 4,
            "params": {
                "token_schedule": [
                    {"up_to_batch_size": 8, "num_speculative_tokens": 4},
                    {"up_to_batch_size": 32, "num_speculative_tokens": 1},
                ]
            },
            "acceptance_cutoff": {"window": 16, "min_rate": 0.4},
        },
        [{"role": "draft", "name": "org/draft", "tokenizer": {"name": "org/target"}}],
    ),
]


@pytest.mark.parametrize("version", [None, "1.2.1", "1.3.0"])
@pytest.mark.parametrize(("speculation", "assets"), CELLS, ids=lambda x: str(x)[:40])
def test_render_import_render_is_a_fixed_point_where_the_release_runs_it(
    version: str | None, speculation: dict[str, Any], assets: list[dict[str, Any]]
) -> None:
    data = _trt(version, copy.deepcopy(speculation), copy.deepcopy(assets))
    data["compatibility"]["tokenizer"] = {"name": "org/target", "revision": "abc1234"}
    try:
        doc = validate_document(data)
    except ContractError as exc:  # a cell the release cannot run: refused by field, with the release
        assert version == "1.2.1" and all("1.2.1" in e.message for e in exc.errors), exc.errors
        return
    first = render(doc)
    accepted = release_view("trtllm", version).accepted
    assert set(first.config["speculative_config"]) <= accepted
    imported = import_command("trtllm", first.argv, engine_version=version, files=first.files)
    again = render(validate_document(imported.document))
    assert (again.argv, again.config, again.files) == (first.argv, first.config, first.files)


# The CLI and the API hand the file over -------------------------------------------


def test_the_cli_reads_the_yaml_by_config_file_or_by_the_path_the_command_names(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from specpact.cli.main import main

    config = tmp_path / "config.yaml"
    config.write_text(EAGLE3_YAML, encoding="utf-8")
    for extra, words in (
        (["--config-file", str(config)], ["trtllm-serve", "org/m", "--config", str(config)]),
        ([], ["trtllm-serve", "org/m", "--extra_llm_api_options", str(config)]),
    ):
        assert main(["import", "--engine", "trtllm", "--output", "json", *extra, "--", *words]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["document"]["speculation"] == {"method": "eagle3", "num_speculative_tokens": 4}
    assert (
        main(["import", "--engine", "trtllm", "--", "trtllm-serve", "org/m", "--config", "absent.yaml"]) == 2
    )
    assert "absent.yaml" in capsys.readouterr().err


# DFlash and DSpark (1.3.0) ------------------------------------------------------------

# Handmade from the fields of DFlashDecodingConfig / DSparkDecodingConfig in
# NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (main, 0004396): decoding_type, the
# DecodingBaseConfig keys max_draft_len / speculative_model, and the method's own keys.
DFLASH_YAML = """speculative_config:
  decoding_type: DFlash
  max_draft_len: 15
  speculative_model: z-lab/Qwen3-8B-DFlash-b16
  mask_token_id: 151669
  attention_backend: VANILLA
"""
DSPARK_YAML = """speculative_config:
  decoding_type: DSpark
  max_draft_len: 7
  speculative_model: org/dspark-drafter
  block_size: 7
  markov_head_type: gated
"""


@pytest.mark.parametrize(
    ("yaml_text", "method", "tokens", "draft", "left_out"),
    [
        (DFLASH_YAML, "dflash", 15, "z-lab/Qwen3-8B-DFlash-b16", ("mask_token_id",)),
        (DSPARK_YAML, "dspark", 7, "org/dspark-drafter", ("block_size", "markov_head_type")),
    ],
)
def test_dflash_and_dspark_yaml_import_as_their_methods(
    yaml_text: str, method: str, tokens: int, draft: str, left_out: tuple[str, ...]
) -> None:
    result = import_command(
        "trtllm", "trtllm-serve Qwen/Qwen3-8B --config spec.yaml", files={"spec.yaml": yaml_text}
    )
    spec = result.document["speculation"]
    assert (spec["method"], spec["num_speculative_tokens"]) == (method, tokens)
    assert [(a["role"], a["name"]) for a in result.document["assets"]] == [("draft", draft)]
    said = " | ".join(e.message for e in result.unresolved)
    for key in left_out:
        assert key in said, said
    assert "attention_backend" not in " ".join(spec.get("params", {}).get("engine", {}))


@pytest.mark.parametrize(("method", "name"), [("dflash", "DFlash"), ("dspark", "DSpark")])
def test_dflash_and_dspark_render_their_decoding_type_from_1_3_0_and_1_2_1_refuses_them(
    method: str, name: str
) -> None:
    draft = [{"role": "draft", "name": "org/drafter", "tokenizer": {"name": "org/target"}}]
    data = _trt("1.3.0", {"method": method, "num_speculative_tokens": 6}, copy.deepcopy(draft))
    data["compatibility"]["tokenizer"] = {"name": "org/target"}
    spec = render(validate_document(data)).config["speculative_config"]
    assert spec["decoding_type"] == name and spec["max_draft_len"] == 6
    assert spec["speculative_model"] == "org/drafter"
    data["target"]["engine_version"] = "1.2.1"
    message = _errors(data)["speculation.method"]
    assert "1.2.1" in message and "1.3.0" in message, message
    data["target"]["engine_version"] = "1.3.0"
    data["assets"] = []
    assert "assets" in _errors(data)  # a drafter checkpoint is what DFlash and DSpark draft with
