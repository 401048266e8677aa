"""Imports of real command lines with engine knobs, environment variables and old flags
(issue 23 points 2 and 3): a knob lands in speculation.params.engine, a variable that
changes speculation in speculation.env, an unknown speculation word is an unresolved line
(never a refusal of the command), and a command whose flags only an older release accepts is
read, and recorded, as that release, with what today's release needs instead. Each command
is copied from the issue or document named beside it; expected contracts are written by hand."""

from __future__ import annotations

from typing import Any

from contracts_app.document import import_command, render, validate_document


def said(result: Any, path: str | None = None) -> str:
    return " | ".join(e.message for e in result.unresolved if path is None or e.path == path)


# llama.cpp


# ggml-org/llama.cpp#10455 (comment by Mushoz, 2024-11-25): the server's first speculative
# decoding, a draft model given with -md alone.
MUSHOZ = (
    "./llama-server -m /models/Qwen2.5-Coder-32B-Instruct-Q4_K_S.gguf -ngl 99 --host 0.0.0.0 "
    "--port 8999 -md /models/Qwen2.5.1-Coder-1.5B-Instruct-IQ4_XS.gguf -ngld 99 --draft-max 10 "
    "--draft-min 10"
)


def test_an_old_llamacpp_draft_command_is_read_on_the_build_it_was_written_for() -> None:
    result = import_command("llamacpp", MUSHOZ)
    doc = result.document
    # --draft-max/--draft-min are gone from b8942 (#22397): the newest build read before is b8941,
    # where -md alone runs the draft. The draft asset is kept; -ngld is the draft's placement.
    assert doc["target"]["engine_version"] == "b8941"
    assert doc["speculation"] == {
        "method": "draft_model",
        "num_speculative_tokens": 10,
        "params": {"min_speculative_tokens": 10, "engine": {"draft_gpu_layers": "99"}},
    }
    assert doc["assets"] == [
        {
            "role": "draft",
            "name": "/models/Qwen2.5.1-Coder-1.5B-Instruct-IQ4_XS.gguf",
            "tokenizer": {"name": "/models/Qwen2.5-Coder-32B-Instruct-Q4_K_S.gguf"},
        }
    ]
    upgrade = said(result, "upgrade")
    assert "on llama.cpp b11434 the same contract renders as:" in upgrade
    assert "--spec-type draft-simple" in upgrade and "--spec-draft-n-max 10" in upgrade
    assert "--spec-draft-ngl 99" in upgrade
    # The dated contract renders the build's own spelling back.
    argv = render(validate_document(doc)).argv
    assert "--spec-type" not in argv and argv[argv.index("--draft-max") + 1] == "10"
    assert argv[argv.index("--gpu-layers-draft") + 1] == "99"


def test_the_release_the_caller_names_wins_over_dating() -> None:
    # Named as b11434, the same words do not speculate there (--spec-type defaults to none).
    result = import_command("llamacpp", MUSHOZ.replace(" --draft-max 10 --draft-min 10", ""), "b11434")
    assert result.document["target"]["engine_version"] == "b11434"
    assert result.document["speculation"]["method"] == "none"
    assert "upgrade" not in {e.path for e in result.unresolved}


def test_a_draft_acceptance_floor_is_an_engine_param_not_a_refusal() -> None:
    # ggml-org/llama.cpp#26296 (comment by fairydreaming, 2026-07-31), with issue 23's
    # `--spec-draft-p-min 0.75` (the word that made this import exit 2 before).
    command = (
        "./bin/llama-server -m ~/ggufs/Qwen3.6-27B-Q4_K_M.gguf -c $((1*65536)) -b 2048 -ub 2048 -np 1 "
        "--no-repack --host 192.168.18.10 --spec-type draft-mtp --spec-draft-p-min 0.75"
    )
    result = import_command("llamacpp", command)
    doc = result.document
    assert doc["speculation"]["method"] == "mtp"
    assert doc["speculation"]["params"] == {"engine": {"draft_p_min": 0.75}}
    assert "from --spec-draft-p-min 0.75" in said(result, "speculation.params.engine.draft_p_min")
    validate_document(doc)


def test_a_truly_unknown_speculation_flag_is_listed_not_refused() -> None:
    # ggml-org/llama.cpp#26296's command with a flag no llama.cpp build has.
    command = "llama-server -m Qwen3.6-27B-Q4_K_M.gguf --spec-type draft-mtp --spec-draft-turbo 2"
    result = import_command("llamacpp", command)
    assert result.document["speculation"]["method"] == "mtp"
    assert "--spec-draft-turbo 2: not a llama.cpp setting SpecPact knows" in said(result, "argv")


# vLLM


def test_vllm_draft_parallelism_is_a_param_and_an_unknown_key_is_listed() -> None:
    # vllm-project/vllm#15173 (sample command; draft_pipeline_parallel_size was proposed there
    # and never merged).
    command = """vllm serve unsloth/llama-3-8b-Instruct \\
    --tensor-parallel-size 2 \\
    --pipeline-parallel-size 2 \\
    --speculative_config '{"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1, "draft_pipeline_parallel_size": 1}' \\
    --gpu-memory-utilization 0.85"""  # noqa: E501 (quoted verbatim)
    result = import_command("vllm", command)
    spec = result.document["speculation"]
    assert spec == {
        "method": "eagle",
        "num_speculative_tokens": 3,
        "params": {"engine": {"draft_tensor_parallel_size": 1}},
    }
    listed = said(result, "argv")
    assert "draft_pipeline_parallel_size=1: not a vLLM setting SpecPact knows" in listed
    assert "left out of the contract, review it" in listed


def test_vllm_batch_cutoff_imports_as_a_token_schedule_where_the_release_refuses_the_key() -> None:
    # Issue 23's example: disable_by_batch_size 30 on a release that refuses it (0.33.0, from
    # the image tag), with the batch limit the command sets.
    command = (
        "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.33.0 "
        "--model meta-llama/Llama-3.1-8B-Instruct "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4, '
        '"disable_by_batch_size": 30}\' --max-num-seqs 128'
    )
    result = import_command("vllm", command)
    doc = result.document
    assert doc["target"]["engine_version"] == "0.33.0"
    assert doc["speculation"]["params"] == {
        "prompt_lookup_max": 4,
        "token_schedule": [
            {"up_to_batch_size": 30, "num_speculative_tokens": 4},
            {"up_to_batch_size": 128, "num_speculative_tokens": 0},
        ],
    }
    assert "speculation_off_above_batch_size" not in doc["compatibility"]["batching"]
    assert "from disable_by_batch_size 30" in said(result, "speculation.params.token_schedule")
    config = render(validate_document(doc)).config
    assert config["num_speculative_tokens_per_batch_size"] == [[1, 30, 4], [31, 128, 0]]


def test_vllm_batch_cutoff_is_kept_on_the_v0_engine_and_left_out_where_nothing_says_it() -> None:
    head = "docker run vllm/vllm-openai:v{} --model m --speculative-config "
    config = '\'{"method": "ngram", "num_speculative_tokens": 4, "disable_by_batch_size": 30}\''
    v0 = import_command("vllm", head.format("0.9.2") + config).document
    assert v0["compatibility"]["batching"]["speculation_off_above_batch_size"] == 30
    unused = import_command("vllm", head.format("0.16.0") + config)
    assert "speculation_off_above_batch_size" not in unused.document["compatibility"]["batching"]
    assert "params" not in unused.document["speculation"]
    assert "does not act on it" in said(unused, "compatibility.batching.speculation_off_above_batch_size")


def test_a_vllm_env_word_lands_in_speculation_env() -> None:
    # vllm-project/vllm#25250 (after an ENV=value word).
    command = """VLLM_USE_V1=1 vllm serve "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic" \\
    --seed 42 \\
    --tensor-parallel-size 4 \\
    --speculative-config '{"model": "nm-testing/SpeculatorLlama3-1-8B-Eagle3-converted-0717-quantized", "num_speculative_tokens": 3, "method":"eagle3"}'"""  # noqa: E501 (quoted verbatim)
    doc = import_command("vllm", command).document
    assert doc["speculation"]["env"] == {"VLLM_USE_V1": "1"}
    assert render(validate_document(doc)).shell.startswith("VLLM_USE_V1=1 vllm serve ")


# SGLang


def test_sglang_acceptance_thresholds_are_params_and_unmerged_flags_are_listed() -> None:
    # sgl-project/sglang#7702 (test command; --speculative-relaxed-thinking and
    # --speculative-reasoning-parser are that open PR's own flags).
    command = (
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 "
        "--trust-remote-code --tp 8  "
        "--speculative-algorithm=EAGLE --speculative-num-steps=3 --speculative-eagle-topk=1 "
        "--speculative-num-draft-tokens=4 --speculative-accept-threshold-acc=0.01 "
        "--speculative-accept-threshold-single=0.01 --speculative-relaxed-thinking  "
        "--speculative-reasoning-parser=deepseek-r1"
    )
    result = import_command("sglang", command)
    spec = result.document["speculation"]
    # EAGLE without a draft path runs the model's own MTP layers (engines/sglang.py).
    assert spec["method"] == "mtp" and spec["num_speculative_tokens"] == 3
    assert spec["params"]["engine"] == {
        "speculative_accept_threshold_acc": 0.01,
        "speculative_accept_threshold_single": 0.01,
    }
    listed = said(result, "argv")
    assert "--speculative-relaxed-thinking: not a SGLang setting SpecPact knows" in listed
    assert (
        "--speculative-reasoning-parser=deepseek-r1" in listed
        or "--speculative-reasoning-parser deepseek-r1" in listed
    )


def test_sglang_spec_v2_from_docker_e_lands_in_speculation_env() -> None:
    # sgl-project/sglang docs/advanced_features/speculative_decoding.md (SpecV2), its
    # SGLANG_ENABLE_SPEC_V2=True given to the official image with docker -e instead.
    command = """docker run --gpus all --shm-size 32g -p 30000:30000 -e SGLANG_ENABLE_SPEC_V2=True \\
    lmsysorg/sglang:v0.5.10-cu129 python3 -m sglang.launch_server \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --speculative-algorithm STANDALONE \\
    --speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct \\
    --speculative-num-steps 4 \\
    --speculative-eagle-topk 1 \\
    --speculative-num-draft-tokens 5"""
    result = import_command("sglang", command)
    doc = result.document
    assert doc["target"]["engine_version"] == "0.5.10"
    assert doc["speculation"]["env"] == {"SGLANG_ENABLE_SPEC_V2": "True"}
    assert doc["speculation"]["method"] == "draft_model"
    rendered = render(validate_document(doc))
    assert rendered.env == {"SGLANG_ENABLE_SPEC_V2": "True"}


def test_a_knob_on_a_command_that_does_not_speculate_is_left_out() -> None:
    result = import_command(
        "sglang", "SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server --model-path m"
    )
    assert "env" not in result.document["speculation"]
    assert "the command does not speculate" in said(result, "argv")


def test_an_unknown_speculation_argument_of_generate_is_listed_not_refused() -> None:
    # SpecPact's notation of a generate() call (the format README), with an argument no
    # Transformers release has: it was a refusal of the whole paste before issue 23.
    command = (
        "transformers-generate --model org/target assistant_model=org/draft num_assistant_tokens=4 "
        "assistant_turbo=2"
    )
    result = import_command("transformers", command)
    assert result.document["speculation"]["method"] == "draft_model"
    assert "assistant_turbo=2: a speculation setting SpecPact does not know" in said(result, "argv")
