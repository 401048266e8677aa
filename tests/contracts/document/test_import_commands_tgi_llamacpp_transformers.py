"""Real TGI, llama.cpp and Transformers command lines (and generate() calls), copied from
the engines' docs, READMEs and issue trackers (the source beside each), import to the
right method, tokens and assets; the ones a contract cannot hold are refused by name."""

from __future__ import annotations

import pytest

from contracts_app.document import ContractError, import_command

from .test_import_commands_vllm_sglang import Pasted, check

TGI = [
    Pasted(
        "huggingface/text-generation-inference README.md (quick tour, the whole block)",
        """model=HuggingFaceH4/zephyr-7b-beta
# share a volume with the Docker container to avoid downloading weights every run
volume=$PWD/data

docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data \\
    ghcr.io/huggingface/text-generation-inference:3.3.5 --model-id $model""",
        "none",
        model="HuggingFaceH4/zephyr-7b-beta",
        version="3.3.5",
        said=("$model is 'HuggingFaceH4/zephyr-7b-beta', as the paste sets it",),
    ),
    Pasted(
        "huggingface/text-generation-inference README.md (local install)",
        "text-generation-launcher --model-id mistralai/Mistral-7B-Instruct-v0.2",
        "none",
        model="mistralai/Mistral-7B-Instruct-v0.2",
    ),
    Pasted(
        "huggingface/text-generation-inference docs/source/backends/gaudi.mdx (tag with a backend suffix)",
        """model=meta-llama/Meta-Llama-3.1-8B-Instruct
docker run --runtime=habana --cap-add=sys_nice --ipc=host \\
    -p 8080:80 -v $volume:/data -e HF_TOKEN=$hf_token \\
    ghcr.io/huggingface/text-generation-inference:3.3.5-gaudi \\
    --model-id $model""",
        "none",
        model="meta-llama/Meta-Llama-3.1-8B-Instruct",
        version="3.3.5",
    ),
    Pasted(
        "huggingface/text-generation-inference#1641 (Medusa heads as --model-id)",
        "docker run --gpus all --shm-size 1g -p 8081:80 ghcr.io/huggingface/text-generation-inference:1.4.3 "
        "--model-id text-generation-inference/Mistral-7B-Instruct-v0.2-medusa --num-shard 1",
        "medusa",
        None,
        (("medusa_heads", "text-generation-inference/Mistral-7B-Instruct-v0.2-medusa"),),
        version="1.4.3",
        said=("--num-shard 1 is not part of a contract",),
    ),
    Pasted(
        "huggingface/text-generation-inference#2997 (docker create, then docker start)",
        """model="NousResearch/Meta-Llama-3.1-8B-Instruct"
volume="$PWD/data"
docker create --name llama3.1-speculate2 --gpus all --shm-size 1g -p 8080:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:3.1.0 --model-id $model --quantize eetq --speculate 2
docker start llama3.1-speculate2""",  # noqa: E501 (quoted verbatim)
        "ngram",
        2,
        model="NousResearch/Meta-Llama-3.1-8B-Instruct",
        version="3.1.0",
        said=("only the first command is read", "--quantize eetq is not part of a contract"),
    ),
]


@pytest.mark.parametrize("case", TGI, ids=lambda c: c.source)
def test_real_tgi_command_lines_import(case: Pasted) -> None:
    check("tgi", case)


LLAMACPP = [
    Pasted(
        "ggml-org/llama.cpp#19232 (build 7895: the flags before #22397)",
        "llama-server --host 192.168.100.248 --port 8086 -m /llm/unsloth_gpt-oss-20b-GGUF_gpt-oss-20b-F16.gguf "  # noqa: E501 (quoted verbatim)
        "--jinja --mmap --spec-type ngram-mod --spec-ngram-size-n 24 --draft-min 48 --draft-max 64 --ctx-size 8192 "  # noqa: E501 (quoted verbatim)
        "--flash-attn on --cache-ram 16384 --main-gpu 0 -ngl 999 --fit off",
        "ngram",
        64,
        params={"ngram_variant": "mod", "prompt_lookup_max": 24, "min_speculative_tokens": 48},
        version="b8941",  # dated by its flags: the newest build read before they were renamed
        said=("--draft-max is not in llama.cpp b11434; use --spec-draft-n-max", "ggml-org/llama.cpp#22397"),
    ),
    Pasted(
        "ggml-org/llama.cpp#11318 (comment: a model from a path and a repo)",
        """llama-server \\
    --hf-repo ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF \\
    --hf-file qwen2.5-coder-7b-q8_0.gguf \\
    --port 8012 -ngl 99 -fa -ub 1024 -b 1024 \\
    --model /custom/model/path/Qwen2.5-Coder-7B-Q8_0.gguf \\
    --ctx-size 0 --cache-reuse 256""",
        "none",
        model="/custom/model/path/Qwen2.5-Coder-7B-Q8_0.gguf",
        said=("-fa is not part of a contract",),
    ),
    Pasted(
        "ggml-org/llama.cpp#24443 (a draft without --spec-type: current builds do not speculate)",
        "llama-server --model gemma-4-12B-it-qat-UD-Q4_K_XL.gguf --mmproj mmproj-F16.gguf --model-draft "
        'mtp-gemma-4-12B-it.gguf --temp 1.0 --top-p 0.95 --top-k 64 --alias "unsloth/gemma-4-12b-it-qat-GGUF" '  # noqa: E501 (quoted verbatim)
        "--port 8001",
        "none",
        model="gemma-4-12B-it-qat-UD-Q4_K_XL.gguf",
        said=("does not speculate with -md alone",),
    ),
    Pasted(
        "ggml-org/Llama-macOS#97 (`llama serve` from a Homebrew install, which names the build)",
        "/opt/homebrew/Cellar/llama.cpp/9700/bin/llama serve --host 127.0.0.1 --port 51082 --alias "
        "unsloth/gemma-4-12B-it-qat-GGUF:UD-Q4_K_XL --ctx-size 65536 --model /Users/rbe/.cache/huggingface/hub/"  # noqa: E501 (quoted verbatim)
        "models--unsloth--gemma-4-12B-it-qat-GGUF/snapshots/7102bdea62863acff919c945405ef29973113d66/"
        "gemma-4-12B-it-qat-UD-Q4_K_XL.gguf",
        "none",
        version="b9700",
    ),
    Pasted(
        "ggml-org/Llama-macOS#97 (its command with the flags the issue says to add for the MTP assistant)",
        "llama-server --model gemma-4-12B-it-qat-UD-Q4_K_XL.gguf --spec-draft-model mtp-gemma-4-12B-it.gguf "
        "--spec-type draft-mtp --spec-draft-n-max 2",
        "mtp",
        2,
        (("mtp_assistant", "mtp-gemma-4-12B-it.gguf"),),
    ),
    Pasted(
        "ggml-org/llama.cpp#23929 (a stacked --spec-type: draft-mtp, then ngram-mod when MTP drafts nothing)",
        """./build/bin/llama-server \\
      --verbosity 4 \\
      -m /home/abdulrahman/Personal/Programs/llama/models/Qwen/Qwen3.6-27B-Q4_K_S.gguf \\
      --chat_template_kwargs '{"preserve_thinking": "True"}' \\
      --jinja \\
      --host 0.0.0.0 --port 8080 \\
      --spec-type draft-mtp,ngram-mod --spec-draft-n-max 2 --spec-ngram-mod-n-match 24 --spec-ngram-mod-n-min 2 --spec-ngram-mod-n-max 48 \\
      -c 64000 \\
      -sm tensor --tensor-split 66,24 -ub 48""",  # noqa: E501 (quoted verbatim)
        "mtp",
        2,
        params={"fallback_types": ["ngram-mod"]},
        model="/home/abdulrahman/Personal/Programs/llama/models/Qwen/Qwen3.6-27B-Q4_K_S.gguf",
        said=(
            "--spec-ngram-mod-n-match 24 sets the fallback type ngram-mod",
            "--spec-ngram-mod-n-min 2 sets the fallback type ngram-mod",
            "--spec-ngram-mod-n-max 48 sets the fallback type ngram-mod",
        ),
    ),
]


@pytest.mark.parametrize("case", LLAMACPP, ids=lambda c: c.source)
def test_real_llamacpp_command_lines_import(case: Pasted) -> None:
    check("llamacpp", case)


TRANSFORMERS = [
    Pasted(
        "huggingface/transformers docs/source/en/generation_strategies.md (speculative decoding)",
        """from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("HuggingFaceTB/SmolLM-1.7B")
model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-1.7B")
assistant_model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-135M")
inputs = tokenizer("Hugging Face is an open-source company", return_tensors="pt")

outputs = model.generate(**inputs, assistant_model=assistant_model, do_sample=True, temperature=0.5)
tokenizer.batch_decode(outputs, skip_special_tokens=True)
'Hugging Face is an open-source company that is dedicated to creating a better world through technology.'""",
        "draft_model",
        None,
        (("draft", "HuggingFaceTB/SmolLM-135M"),),
        model="HuggingFaceTB/SmolLM-1.7B",
        said=("temperature=0.5 is set per request",),
    ),
    Pasted(
        "huggingface/transformers docs/source/en/generation_strategies.md "
        "(prompt lookup; the assistant is ignored)",
        """import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("HuggingFaceTB/SmolLM-1.7B")
model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-1.7B", torch_dtype=torch.float16).to("cuda")
assistant_model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-135M", torch_dtype=torch.float16).to("cuda")
inputs = tokenizer("Hugging Face is an open-source company", return_tensors="pt").to("cuda")

outputs = model.generate(**inputs, assistant_model=assistant_model, max_new_tokens=20, prompt_lookup_num_tokens=5)""",  # noqa: E501 (quoted verbatim)
        "ngram",
        5,
        said=("generate() runs prompt lookup and ignores assistant_model",),
    ),
    Pasted(
        "huggingface/transformers docs/source/en/generation_strategies.md (self-speculative decoding)",
        """from transformers import AutoModelForCausalLM, AutoTokenizer

prompt = "Alice and Bob"
checkpoint = "facebook/layerskip-llama3.2-1B"

tokenizer = AutoTokenizer.from_pretrained(checkpoint)
inputs = tokenizer(prompt, return_tensors="pt")

model = AutoModelForCausalLM.from_pretrained(checkpoint)
outputs = model.generate(**inputs, assistant_early_exit=4, do_sample=False, max_new_tokens=20)
tokenizer.batch_decode(outputs, skip_special_tokens=True)""",
        "early_exit",
        None,
        params={"early_exit_layer": 4},
        model="facebook/layerskip-llama3.2-1B",
    ),
    Pasted(
        "huggingface/transformers docs/source/en/generation_strategies.md (universal assisted decoding)",
        """from transformers import AutoModelForCausalLM, AutoTokenizer

prompt = "Alice and Bob"

assistant_tokenizer = AutoTokenizer.from_pretrained("double7/vicuna-68m")
tokenizer = AutoTokenizer.from_pretrained("google/gemma-2-9b")
inputs = tokenizer(prompt, return_tensors="pt")

model = AutoModelForCausalLM.from_pretrained("google/gemma-2-9b")
assistant_model = AutoModelForCausalLM.from_pretrained("double7/vicuna-68m")
outputs = model.generate(**inputs, assistant_model=assistant_model, tokenizer=tokenizer, assistant_tokenizer=assistant_tokenizer)""",  # noqa: E501 (quoted verbatim)
        "draft_model",
        None,
        (("draft", "double7/vicuna-68m"),),
        {"heterogeneous_vocab": True},
        model="google/gemma-2-9b",
    ),
    Pasted(
        "huggingface/transformers docs/source/en/generation_strategies.md "
        "(an earlier version: doctest style)",
        """>>> from transformers import AutoModelForCausalLM, AutoTokenizer

>>> prompt = "Alice and Bob"
>>> checkpoint = "facebook/layerskip-llama3.2-1B"

>>> tokenizer = AutoTokenizer.from_pretrained(checkpoint)
>>> inputs = tokenizer(prompt, return_tensors="pt")

>>> model = AutoModelForCausalLM.from_pretrained(checkpoint)
>>> outputs = model.generate(**inputs, assistant_early_exit=4, do_sample=False, max_new_tokens=20)
>>> tokenizer.batch_decode(outputs, skip_special_tokens=True)
['Alice and Bob are sitting in a bar. Alice is drinking a beer and Bob is drinking a']""",
        "early_exit",
        None,
        params={"early_exit_layer": 4},
    ),
]


@pytest.mark.parametrize("case", TRANSFORMERS, ids=lambda c: c.source)
def test_real_transformers_generate_calls_import(case: Pasted) -> None:
    check("transformers", case)


REFUSED = [
    (
        "llamacpp",
        "a stacked --spec-type whose fallback loads its own draft (issue 23: n-gram fallbacks only)",
        "llama-server -m target.gguf -md draft.gguf --spec-type ngram-mod,draft-simple",
        "draft-simple after the first type",
    ),
    (
        "llamacpp",
        "ggml-org/llama.cpp#12287 (a preset)",
        "llama-server --fim-qwen-7b-spec",
        "--fim-qwen-7b-spec",
    ),
    (
        "transformers",
        "issue 10's example: a generate() call with no model to read",
        "outputs = model.generate(..., assistant_early_exit=4)",
        "which model generate() is called on",
    ),
]


@pytest.mark.parametrize(("engine", "source", "command", "named"), REFUSED, ids=[r[1] for r in REFUSED])
def test_real_command_lines_the_format_cannot_hold_are_refused_by_name(
    engine: str, source: str, command: str, named: str
) -> None:
    with pytest.raises(ContractError) as info:
        import_command(engine, command)
    assert any(named in e.message for e in info.value.errors), [e.message for e in info.value.errors]
