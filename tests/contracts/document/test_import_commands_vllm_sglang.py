"""Real vLLM and SGLang command lines, copied from the engines' docs and issue trackers
(the source beside each), import to the right method, tokens and assets (issue 10)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from contracts_app.document import import_command


@dataclass(frozen=True)
class Pasted:
    source: str
    command: str
    method: str
    tokens: int | None = None
    assets: tuple[tuple[str, str], ...] = ()
    params: dict[str, object] = field(default_factory=dict)
    model: str | None = None
    version: str | None = None
    said: tuple[str, ...] = ()  # fragments the unresolved list must carry
    env: dict[str, str] = field(default_factory=dict)  # speculation.env


def check(engine: str, case: Pasted) -> None:
    result = import_command(engine, case.command)
    doc = result.document
    assert doc["speculation"]["method"] == case.method, case.source
    assert doc["speculation"].get("num_speculative_tokens") == case.tokens, case.source
    assert tuple((a["role"], a["name"]) for a in doc["assets"]) == case.assets, case.source
    assert doc["speculation"].get("params", {}) == case.params, case.source
    if case.model:
        assert doc["target"]["model"] == case.model
    assert doc["target"].get("engine_version") == case.version
    assert doc["speculation"].get("env", {}) == case.env, case.source
    said = " | ".join(e.message for e in result.unresolved)
    for fragment in case.said:
        assert fragment in said, f"{fragment!r} not in {said!r}"


VLLM = [
    Pasted(
        "vllm-project/vllm docs/features/speculative_decoding/mtp.md (Gemma 4 assistant)",
        """vllm serve google/gemma-4-E2B-it \\
    --tensor-parallel-size 1 \\
    --max-model-len 8192 \\
    --speculative-config '{"method":"mtp","model":"gg-hf-am/gemma-4-E2B-it-assistant","num_speculative_tokens":1}'""",  # noqa: E501 (quoted verbatim)
        "mtp",
        1,
        (("mtp_assistant", "gg-hf-am/gemma-4-E2B-it-assistant"),),
        said=("an MTP assistant checkpoint",),
    ),
    Pasted(
        "vllm-project/vllm docs/features/speculative_decoding/mtp.md (online example)",
        """vllm serve XiaomiMiMo/MiMo-7B-Base \\
    --tensor-parallel-size 1 \\
    --speculative-config '{"method":"mtp","num_speculative_tokens":1}'""",
        "mtp",
        1,
    ),
    Pasted(
        "vllm-project/vllm docs/features/speculative_decoding/parallel_draft_model.md (PARD online)",
        """vllm serve Qwen/Qwen3-4B \\
    --host 0.0.0.0 \\
    --port 8000 \\
    --seed 42 \\
    -tp 1 \\
    --max_model_len 2048 \\
    --gpu_memory_utilization 0.8 \\
    --speculative_config '{"model": "amd/PARD-Qwen3-0.6B", "num_speculative_tokens": 12, "method": "draft_model", "parallel_drafting": true}'""",  # noqa: E501 (quoted verbatim)
        "draft_model",
        12,
        (("draft", "amd/PARD-Qwen3-0.6B"),),
        {"parallel_drafting": True},
    ),
    Pasted(
        "vllm-project/vllm#31883 (pasted flattened, with its backslashes; no method: vLLM infers it)",
        "vllm serve /Qwen/Qwen3-4B \\ --dtype bfloat16 \\ --tensor-parallel-size 1 \\ --host 0.0.0.0 \\ "
        """--port 8199 \\ --speculative_config '{"model": "/Qwen/Qwen3-0___6B", "num_speculative_tokens": 5}'""",  # noqa: E501 (quoted verbatim)
        "draft_model",
        5,
        (("draft", "/Qwen/Qwen3-0___6B"),),
        model="/Qwen/Qwen3-4B",
        said=("vLLM infers it",),
    ),
    Pasted(
        "vllm-project/vllm#25250 (after an ENV=value word)",
        """VLLM_USE_V1=1 vllm serve "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic" \\
    --seed 42 \\
    --tensor-parallel-size 4 \\
    --speculative-config '{"model": "nm-testing/SpeculatorLlama3-1-8B-Eagle3-converted-0717-quantized", "num_speculative_tokens": 3, "method":"eagle3"}'""",  # noqa: E501 (quoted verbatim)
        "eagle3",
        3,
        (("eagle_head", "nm-testing/SpeculatorLlama3-1-8B-Eagle3-converted-0717-quantized"),),
        said=("from VLLM_USE_V1=1 (vllm-project/vllm vllm/envs.py)",),
        env={"VLLM_USE_V1": "1"},
    ),
    Pasted(
        "vllm-project/vllm#42468",
        """vllm serve meta-llama/Llama-3.1-8B-Instruct \\
  --dtype bfloat16 \\
  --no-enable-prefix-caching \\
  --trust-remote-code \\
  --speculative-config '{"method": "eagle3", "model": "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3", "num_speculative_tokens": 2}'""",  # noqa: E501 (quoted verbatim)
        "eagle3",
        2,
        (("eagle_head", "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3"),),
        said=("--no-enable-prefix-caching is not part of a contract",),
    ),
    Pasted(
        "vllm-project/vllm#8416 (docker run with the flags --speculative-config replaced)",
        """docker run -e CUDA_VISIBLE_DEVICES=1 \\
    --gpus 'all' \\
    --network host \\
    --ipc host \\
    --shm-size="1G" \\
    --privileged \\
    --volume=/mnt/user/xhjcxxl/qwen/QwenModel:/QwenModel \\
    -it \\
    vllm-image:vllm \\
    --model /QwenModel/Qwen2-72B-Instruct-GPTQ-Int4 \\
    --speculative-model /QwenModel/Qwen2-1.5B-Instruct \\
    --use-v2-block-manager \\
    --num-speculative-tokens 5""",
        "draft_model",
        5,
        (("draft", "/QwenModel/Qwen2-1.5B-Instruct"),),
        model="/QwenModel/Qwen2-72B-Instruct-GPTQ-Int4",
        said=(
            "--speculative-model was removed in vLLM 0.8.3 (vllm-project/vllm#15466)",
            "not vLLM's own image",
        ),
    ),
    Pasted(
        "vllm-project/vllm#16883 (with the export line before it)",
        """export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
vllm serve /data/code/Qwen2.5-Coder-32B-Instruct \\
  --host 0.0.0.0 \\
  --port 8080 \\
  --trust-remote-code \\
  --gpu-memory-utilization 0.9 \\
  --dtype auto \\
  --tensor-parallel-size 4 \\
  --max-num-batched-tokens 131072 \\
  --max-model-len 131072 \\
  --max-num-seqs 8 \\
  --enable-prefix-caching \\
  --speculative-config '{"method": "ngram", "prompt_lookup_min": 10, "prompt_lookup_max": 50, "num_speculative_tokens": 300}' \\
  --rope-scaling '{ "factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn" }' \\
  --enforce-eager""",  # noqa: E501 (quoted verbatim)
        "ngram",
        300,
        params={"prompt_lookup_min": 10, "prompt_lookup_max": 50},
        said=(
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is not part of a contract",
            "--enforce-eager is not part of a contract",
        ),
    ),
]


@pytest.mark.parametrize("case", VLLM, ids=lambda c: c.source)
def test_real_vllm_command_lines_import(case: Pasted) -> None:
    check("vllm", case)


SGLANG = [
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md (EAGLE-2)",
        """python3 -m sglang.launch_server \\
    --model meta-llama/Llama-2-7b-chat-hf \\
    --speculative-algorithm EAGLE \\
    --speculative-draft-model-path lmsys/sglang-EAGLE-llama2-chat-7B \\
    --speculative-num-steps 3 \\
    --speculative-eagle-topk 4 \\
    --speculative-num-draft-tokens 16 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --log-level warning""",
        "eagle",
        3,
        (("eagle_head", "lmsys/sglang-EAGLE-llama2-chat-7B"),),
        {"eagle_topk": 4, "num_draft_tokens": 16},
    ),
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md (EAGLE-3)",
        """python3 -m sglang.launch_server \\
    --model meta-llama/Meta-Llama-3.1-8B-Instruct \\
    --speculative-algorithm EAGLE3 \\
    --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B \\
    --speculative-num-steps 3 \\
    --speculative-eagle-topk 4 \\
    --speculative-num-draft-tokens 16 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --dtype float16 \\
    --log-level warning""",
        "eagle3",
        3,
        (("eagle_head", "jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B"),),
        {"eagle_topk": 4, "num_draft_tokens": 16},
    ),
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md (MTP: EAGLE without a draft)",
        """python3 -m sglang.launch_server \\
    --model XiaomiMiMo/MiMo-7B-RL \\
    --host 0.0.0.0 \\
    --trust-remote-code \\
    --speculative-algorithm EAGLE \\
    --speculative-num-steps 1 \\
    --speculative-eagle-topk 1 \\
    --speculative-num-draft-tokens 2 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --log-level warning""",
        "mtp",
        1,
        said=("EAGLE without a draft path uses the model's own MTP layers",),
    ),
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md (SpecV2, after an ENV=value word)",
        """SGLANG_ENABLE_SPEC_V2=True python3 -m sglang.launch_server \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --speculative-algorithm STANDALONE \\
    --speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct \\
    --speculative-num-steps 4 \\
    --speculative-eagle-topk 1 \\
    --speculative-num-draft-tokens 5 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --log-level warning""",
        "draft_model",
        4,
        (("draft", "Qwen/Qwen2.5-1.5B-Instruct"),),
        said=("from SGLANG_ENABLE_SPEC_V2=True",),
        env={"SGLANG_ENABLE_SPEC_V2": "True"},
    ),
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md "
        "(NGRAM, with a flag 0.5.10 removed)",
        """python3 -m sglang.launch_server \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --speculative-algorithm NGRAM \\
    --speculative-num-draft-tokens 16 \\
    --speculative-ngram-max-match-window-size 12 \\
    --speculative-ngram-max-bfs-breadth 10 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --log-level warning""",
        "ngram",
        16,
        params={"prompt_lookup_max": 12, "engine": {"speculative_ngram_max_bfs_breadth": 10}},
        version="0.5.7",  # dated by its flags: the newest release read that has the match window
        said=(
            "--speculative-ngram-max-match-window-size is not in SGLang 0.5.23",
            "sgl-project/sglang#21225",
            "from --speculative-ngram-max-bfs-breadth 10",
            "on SGLang 0.5.23 this contract does not validate as it stands",
        ),
    ),
    Pasted(
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md (standalone draft model)",
        """python3 -m sglang.launch_server \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --speculative-algorithm STANDALONE \\
    --speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct \\
    --speculative-num-steps 4 \\
    --speculative-eagle-topk 2 \\
    --speculative-num-draft-tokens 7 \\
    --mem-fraction-static 0.7 \\
    --cuda-graph-max-bs 8 \\
    --log-level warning""",
        "draft_model",
        4,
        (("draft", "Qwen/Qwen2.5-1.5B-Instruct"),),
        {"eagle_topk": 2, "num_draft_tokens": 7},
    ),
]


@pytest.mark.parametrize("case", SGLANG, ids=lambda c: c.source)
def test_real_sglang_command_lines_import(case: Pasted) -> None:
    check("sglang", case)
