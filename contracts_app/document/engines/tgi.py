"""Text Generation Inference by release. Read from the huggingface/text-generation-inference
repository (its git history, v1.0.0 … v3.3.7; the project is in maintenance mode):
`launcher/src/main.rs` and `docs/source/reference/launcher.md` for the flags (each also
read from the environment under its upper-case name, `[env: SPECULATE=]`),
`server/text_generation_server/models/__init__.py` and `layers/speculative.py` for what
`--speculate` runs, `backends/v3/src/backend.rs` for the metrics."""

from __future__ import annotations

from .release import EngineKnowledge, Feature

LAUNCHER = "huggingface/text-generation-inference launcher/src/main.rs"
MODELS = "huggingface/text-generation-inference server/text_generation_server/models/__init__.py"


def _f(name: str, role: str = "tuning", **kw: object) -> Feature:
    env = kw.pop("env", name.removeprefix("--").replace("-", "_").upper())
    return Feature(name, "flag", kw.pop("source", LAUNCHER), role=role, env=env, **kw)  # type: ignore[arg-type]


FEATURES: tuple[Feature, ...] = (
    # `--speculate N`: Medusa when the model repository carries Medusa heads, an MLP
    # speculator when it is one (model_type mlp_speculator), n-gram otherwise.
    Feature("medusa", "method", f"{MODELS} (medusa_num_heads; #1308)", method="medusa", since="1.3.0"),
    Feature("ngram", "method", f"{MODELS} (#1308)", method="ngram", since="1.3.0"),
    Feature(
        "mlp_speculator",
        "method",
        f"{MODELS} (model_type mlp_speculator; #1865)",
        method="mlp_speculator",
        since="2.0.3",
    ),
    _f(
        "--model-id",
        "contract",
        field="target.model",
        note="the heads' or speculator's repository for "
        "Medusa and MLP speculators: its config names the base model",
    ),
    _f("--revision", "contract", field="target.revision"),
    _f(
        "--speculate",
        "contract",
        since="1.3.0",
        field="speculation.num_speculative_tokens",
        source=f"{LAUNCHER} (#1308)",
    ),
    _f("--max-concurrent-requests", "contract", field="compatibility.max_concurrency"),
    _f(
        "--max-batch-size",
        "contract",
        field="compatibility.batching.max_batch_size",
        note="imported; not rendered: TGI ignores it on NVIDIA GPUs (it batches by tokens)",
    ),
    _f("--max-batch-total-tokens"),
    _f("--max-batch-prefill-tokens"),
    _f("--trust-remote-code", takes_value=False),
    _f("--disable-custom-kernels", takes_value=False),
    _f("--json-output", takes_value=False),
    _f("--ngrok", takes_value=False),
    _f("--disable-grammar-support", takes_value=False),
    _f("--enable-prefill-logprobs", takes_value=False),
    _f("--env", aliases=("-e",), takes_value=False, env=None),
    _f("--port", aliases=("-p",)),
    # Metrics and endpoints: /info carries no speculation field.
    Feature(
        "tgi_request_skipped_tokens",
        "metric",
        "huggingface/text-generation-inference backends/v3/src/backend.rs (histogram; router/src before v3)",
        since="1.3.0",
        note="accepted speculated tokens per step",
    ),
    Feature(
        "/info",
        "endpoint",
        "huggingface/text-generation-inference router/src/server.rs",
        note="model_id, model_sha, ...; no speculation field",
    ),
    Feature("/metrics", "endpoint", "huggingface/text-generation-inference router/src/server.rs"),
)

KNOWLEDGE = EngineKnowledge(
    engine="tgi",
    name="TGI",
    scheme="pep440",
    releases=(
        ("1.0.0", "git tag v1.0.0: no --speculate"),
        ("1.3.0", "git tag v1.3.0: --speculate, Medusa and n-gram (#1308)"),
        ("2.0.3", "git tag v2.0.3: MLP speculators (#1865)"),
        ("3.3.7", "git tag v3.3.7 (maintenance mode)"),
    ),
    features=FEATURES,
    notes=(
        "TGI chooses the method from the model repository: Medusa heads (medusa_num_heads in "
        "its config) or an MLP speculator (model_type mlp_speculator) are launched as "
        "--model-id and name their base model; any other repository runs n-gram.",
        "For Medusa and MLP speculators TGI loads the base model at revision main.",
    ),
)
