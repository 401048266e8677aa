"""Small samples of each format a workload can be imported from, written for these tests
in the shape each format's own source defines (cited beside each). No downloaded data."""

from __future__ import annotations

import json

# SpecPact workload JSONL (worker/workloads/records.py): prompts, a two-turn chat with a
# system prompt and references, a trace offset, max_tokens.
SPECPACT = (
    "\n".join(
        json.dumps(line)
        for line in [
            {
                "id": "p1",
                "prompt": "Extract the ticket number from: ticket 4411 was closed.",
                "reference": "4411",
            },
            {
                "messages": [
                    {"role": "system", "content": "You are the support desk of Harbor Calendars."},
                    {"role": "user", "content": "My calendar stopped syncing yesterday."},
                ],
                "conversation": "c-1",
                "turn": 0,
                "reference": "Sorry to hear that. Which phone do you sync it with?",
                "max_tokens": 64,
            },
            {
                "messages": [{"role": "user", "content": "An Atlas phone, updated last week."}],
                "conversation": "c-1",
                "turn": 1,
                "reference": "Atlas phones updated last week need the calendar app's 4.2 update.",
                "arrival_s": 1.5,
            },
        ]
    )
    + "\n"
)

# OpenAI chat-completions request logs. Shapes: the request body of `POST
# /v1/chat/completions` (OpenAI API reference, "Create chat completion": model, messages
# [{role, content}], max_completion_tokens / max_tokens; content as a string or text
# parts), and a Batch API input line {"custom_id", "method", "url", "body"} (OpenAI API
# reference, Batch, "The request input object"), here with the answer beside it as the
# Batch output's `response` {"status_code", "body": <chat completion>}.
_SYSTEM = {"role": "system", "content": "You are a concise assistant for Kestrel e-bikes."}
_Q1 = {"role": "user", "content": "How long does the battery last?"}
_A1 = {"role": "assistant", "content": "About 80 km on a full charge in eco mode."}
_Q2 = {"role": "user", "content": [{"type": "text", "text": "And in sport mode?"}]}
OPENAI = (
    "\n".join(
        json.dumps(line)
        for line in [
            {"model": "m", "messages": [_SYSTEM, _Q1], "max_completion_tokens": 128, "temperature": 0.2},
            {
                "custom_id": "req-2",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {"model": "m", "messages": [_SYSTEM, _Q1, _A1, _Q2], "max_tokens": 96},
                "response": {
                    "status_code": 200,
                    "body": {
                        "object": "chat.completion",
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": "About 45 km."}}
                        ],
                    },
                },
            },
            {"model": "m", "messages": [{"role": "user", "content": "Is the frame aluminium?"}]},
        ]
    )
    + "\n"
)

# ShareGPT (ShareGPT_V3_unfiltered_cleaned_split.json as vLLM's ShareGPTDataset reads it,
# vllm/benchmarks/datasets/sharegpt.py: a JSON array, entry["conversations"][i]["value"],
# "from" human/gpt; SGLang's sample_sharegpt_requests reads the same).
SHAREGPT = json.dumps(
    [
        {
            "id": "sg-1",
            "conversations": [
                {"from": "human", "value": "Write a haiku about rain on a tin roof."},
                {
                    "from": "gpt",
                    "value": "Tin roof drums softly / rain counts the night / sleep in its beat",
                },
                {"from": "human", "value": "Now one about snow."},
                {
                    "from": "gpt",
                    "value": "Snow hushes the roof / the drum has gone quiet now / white sleeps on white",
                },
            ],
        },
        {
            "id": "sg-2",
            "conversations": [
                {"from": "system", "value": "Answer in one sentence."},
                {"from": "human", "value": "What is a tin roof made of?"},
                {"from": "gpt", "value": "Usually steel coated with zinc or tin."},
            ],
        },
    ],
    indent=2,
)

# vLLM `bench serve --dataset-name custom`: {"prompt": ...} per line (CustomDataset,
# vllm/benchmarks/datasets/custom.py); and `--dataset-name spec_bench`: Spec-Bench's
# question.jsonl, {"question_id", "category", "turns": [...]} (SpecBench, same file).
VLLM = (
    "\n".join(
        json.dumps(line)
        for line in [
            {"prompt": "What is the capital of India?"},
            {"prompt": "What is the capital of Iran?", "source": "geo-quiz"},
            {
                "question_id": 81,
                "category": "writing",
                "turns": [
                    "Write a travel blog post about Hawaii.",
                    "Rewrite it starting every sentence with A.",
                ],
            },
        ]
    )
    + "\n"
)

# SGLang bench_serving: `--dataset-name custom`, {"conversations": [{"role", "content"}]}
# (sample_custom_requests, python/sglang/benchmark/datasets/custom.py, which reads
# "content" or "value"); `--dataset-name openai`, {"messages", "max_tokens", ...}
# (sample_openai_requests, python/sglang/benchmark/datasets/openai_dataset.py).
SGLANG = (
    "\n".join(
        json.dumps(line)
        for line in [
            {
                "conversations": [
                    {"role": "user", "content": "Summarise: the meeting moved to Tuesday."},
                    {"role": "assistant", "content": "The meeting is now on Tuesday."},
                ]
            },
            {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Name a prime above 90."},
                ],
                "max_tokens": 16,
                "temperature": 0,
            },
        ]
    )
    + "\n"
)

# Mooncake traces (kvcache-ai/Mooncake FAST25-release/README.md, "Trace Format"):
# {"timestamp" ms, "input_length", "output_length", "hash_ids"}, 512-token blocks. The
# first two share their first two blocks (a shared prefix), as in the README's example.
MOONCAKE = (
    "\n".join(
        json.dumps(line)
        for line in [
            {"timestamp": 0, "input_length": 1200, "output_length": 40, "hash_ids": [0, 1, 2]},
            {"timestamp": 1500, "input_length": 1100, "output_length": 12, "hash_ids": [0, 1, 3]},
            {"timestamp": 700, "input_length": 300, "output_length": 25, "hash_ids": [4]},
        ]
    )
    + "\n"
)

SAMPLES = {
    "specpact": SPECPACT,
    "openai": OPENAI,
    "sharegpt": SHAREGPT,
    "vllm": VLLM,
    "sglang": SGLANG,
    "mooncake": MOONCAKE,
}
