"""The emulator's command line: its schedule, its shape and the speculation it claims.

``--speculation`` is the engine's *own* description of its speculation, in that engine's
vocabulary (the emulator reports it back the way the engine would); ``draft_tokens`` is
how many tokens one verification step drafts, which the counters need. It comes from
``--draft-tokens`` when given, else from the claim (per shape, below), else, with no
speculation configured, from the pattern (``max(pattern) - 1``: the reference server's
rule, so a chunk of ``k`` tokens always reads as one draft with ``k - 1`` accepted).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from typing import Any

SHAPES = ("vllm", "sglang", "llamacpp", "tgi")
# Bad answers on every GET but /health (the launcher's check): a 50 MB /metrics, bodies
# that are not JSON, or a server that sends one byte every half second.
HOSTILE = ("", "huge", "invalid-json", "trickle", "redirect")

# Per shape, the claim key that says how many tokens a step drafts.
# vLLM: SpeculativeConfig.num_speculative_tokens (vllm-project/vllm vllm/config/speculative.py).
# SGLang: speculative_num_draft_tokens counts the verified root token of the draft tree too,
#   so a step drafts one fewer; speculative_num_steps otherwise
#   (sgl-project/sglang python/sglang/srt/server_args.py).
# llama.cpp: the per-slot maximum, "speculative.n_max" (ggml-org/llama.cpp
#   tools/server/server-task.cpp, task_params::to_json, in the releases that emit it).
# TGI: the launcher's --speculate N (huggingface/text-generation-inference launcher/src/main.rs).
_DRAFT_KEYS: dict[str, tuple[tuple[str, int], ...]] = {
    "vllm": (("num_speculative_tokens", 0),),
    "sglang": (("speculative_num_draft_tokens", -1), ("speculative_num_steps", 0)),
    "llamacpp": (("speculative.n_max", 0),),
    "tgi": (("speculate", 0),),
}

# What each shape calls itself when asked for a version (pass --engine-version to claim another).
DEFAULT_VERSIONS = {"vllm": "0.24.0", "sglang": "0.5.6", "llamacpp": "b0-unknown", "tgi": "3.3.6-dev0"}


class ConfigError(ValueError):
    """A setting the emulator can't honour; ``param`` names the flag or field."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param


@dataclass
class Settings:
    shape: str = "vllm"
    served_model_name: str = "test-model"
    engine_version: str = ""
    speculation: dict[str, Any] | None = None
    draft_tokens: int = 0
    ttft_ms: float = 10.0
    ttft_per_stream_ms: float = 0.0
    step_ms: float = 5.0
    step_per_stream_ms: float = 0.0
    load_factor: float = 0.0
    pattern: list[int] = field(default_factory=lambda: [1])
    # Set: each stream's tokens per step are drawn (acceptance.py) instead of the pattern.
    acceptance: float | None = None
    step_jitter: float = 0.0  # log-normal sigma of each stream's step time (acceptance.py)
    model_seed: int = 0
    chunks: int = 0
    output_tokens: int = 1000
    dp_size: int = 1
    enable_metrics: bool = False
    llamacpp_metrics: bool = False
    legacy_info_only: bool = False
    dev_mode: bool = False
    hostile: str = ""
    api_key: str = ""

    @property
    def speculative(self) -> bool:
        return self.speculation is not None


def parse_pattern(value: Any, param: str = "pattern") -> list[int]:
    """``"1,3,2,4"`` or ``[1, 3, 2, 4]``: tokens per step, cycled; each at least 1."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise ConfigError(param, "a non-empty list of token counts, e.g. 1,3,2,4")
    try:
        pattern = [int(x) for x in items]
    except (TypeError, ValueError):
        raise ConfigError(param, f"token counts must be integers, got {value!r}") from None
    if any(isinstance(x, bool) for x in items) or min(pattern) < 1:
        raise ConfigError(param, "every step carries at least one token")
    return pattern


def check_pattern(settings: Settings, pattern: list[int], param: str = "pattern") -> None:
    """A step can't accept more than it drafted: ``k - 1 <= draft_tokens``."""
    if settings.speculative and max(pattern) - 1 > settings.draft_tokens:
        raise ConfigError(
            param,
            f"a step of {max(pattern)} tokens accepts {max(pattern) - 1} drafted tokens, "
            f"but a step drafts only {settings.draft_tokens}",
        )


def _draft_tokens(
    shape: str, speculation: dict[str, Any] | None, explicit: int | None, pattern: list[int]
) -> int:
    if explicit is not None:
        if explicit < 1:
            raise ConfigError("--draft-tokens", "at least 1")
        return explicit
    if speculation is None:
        return max(pattern) - 1
    for key, offset in _DRAFT_KEYS[shape]:
        value = speculation.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value + offset >= 1:
            return value + offset
    keys = " or ".join(key for key, _ in _DRAFT_KEYS[shape])
    raise ConfigError("--speculation", f"the {shape} claim needs {keys} (or pass --draft-tokens)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.support.engine_emulator", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0: any free port (printed as PORT <n>)")
    p.add_argument("--shape", choices=SHAPES, default="vllm", help="which engine to look like")
    p.add_argument("--served-model-name", default="test-model")
    p.add_argument("--engine-version", default="")
    p.add_argument("--speculation", default=None, help="JSON: the speculation settings to claim")
    p.add_argument("--draft-tokens", type=int, default=None, help="tokens drafted per step")
    p.add_argument("--ttft-ms", type=float, default=10.0)
    p.add_argument("--ttft-per-stream-ms", type=float, default=0.0, help="added per active stream")
    p.add_argument("--step-ms", type=float, default=5.0, help="time between steps")
    p.add_argument("--step-per-stream-ms", type=float, default=0.0, help="added per active stream")
    p.add_argument("--load-factor", type=float, default=0.0, help="step × (1 + f × (in flight − 1))")
    p.add_argument("--pattern", default="1", help="tokens per step, cycled, e.g. 1,3,2,4")
    p.add_argument("--tokens-per-chunk", type=int, default=None, help="same as --pattern N")
    p.add_argument("--acceptance", type=float, default=None,
                   help="per-token acceptance: steps drawn, not cycled (acceptance.py)")  # fmt: skip
    p.add_argument("--step-jitter", type=float, default=0.0, help="log-normal sigma of a stream's step time")
    p.add_argument("--model-seed", type=int, default=0, help="seed of the drawn steps and jitter")
    p.add_argument("--chunks", type=int, default=0, help="at most this many steps (0: no limit)")
    p.add_argument("--output-tokens", type=int, default=1000, help="at most this many tokens")
    p.add_argument("--dp-size", type=int, default=1,
                   help="data-parallel ranks (SGLang: internal_states; vLLM: engine series)")  # fmt: skip
    p.add_argument("--enable-metrics", action="store_true", help="SGLang: serve /metrics")
    p.add_argument("--metrics", action="store_true", help="llama.cpp: serve /metrics")
    p.add_argument("--legacy-info-only", action="store_true",
                   help="SGLang: only the older /get_server_info, as before /server_info")  # fmt: skip
    p.add_argument("--api-key", default="", help="vLLM's --api-key: /v1 paths need Authorization: Bearer KEY")
    p.add_argument("--hostile", choices=HOSTILE, default="", help="answer info and metrics paths badly")
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    pattern = parse_pattern(
        str(args.tokens_per_chunk) if args.tokens_per_chunk is not None else args.pattern, "--pattern"
    )
    speculation: dict[str, Any] | None = None
    if args.speculation is not None:
        try:
            speculation = json.loads(args.speculation)
        except ValueError as exc:
            raise ConfigError("--speculation", f"not JSON: {exc}") from None
        if not isinstance(speculation, dict):
            raise ConfigError("--speculation", "a JSON object")
    if args.dp_size < 1:
        raise ConfigError("--dp-size", "at least 1")
    settings = Settings(
        shape=args.shape,
        served_model_name=args.served_model_name,
        engine_version=args.engine_version or DEFAULT_VERSIONS[args.shape],
        speculation=speculation,
        draft_tokens=_draft_tokens(args.shape, speculation, args.draft_tokens, pattern),
        ttft_ms=args.ttft_ms,
        ttft_per_stream_ms=args.ttft_per_stream_ms,
        step_ms=args.step_ms,
        step_per_stream_ms=args.step_per_stream_ms,
        load_factor=args.load_factor,
        pattern=pattern,
        acceptance=args.acceptance,
        step_jitter=args.step_jitter,
        model_seed=args.model_seed,
        chunks=args.chunks,
        output_tokens=args.output_tokens,
        dp_size=args.dp_size,
        enable_metrics=args.enable_metrics,
        llamacpp_metrics=args.metrics,
        legacy_info_only=args.legacy_info_only,
        hostile=args.hostile,
        api_key=args.api_key,
        # vLLM mounts /server_info only in dev mode (vllm/entrypoints/serve/instrumentator/__init__.py).
        dev_mode=os.environ.get("VLLM_SERVER_DEV_MODE", "0") == "1",
    )
    check_pattern(settings, pattern, "--pattern")
    if settings.acceptance is not None and not 0 <= settings.acceptance < 1:
        raise ConfigError("--acceptance", "a probability in [0, 1)")
    if settings.step_jitter < 0:
        raise ConfigError("--step-jitter", "at least 0")
    return settings
