"""What to benchmark: ``BenchPlan``, the input of ``run_benchmark``.

Pure pydantic (no aiohttp/torch), so the dispatcher can build and validate one anywhere
and wrap it in its versioned run specification.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from worker.harness.results.levels import SLO
from worker.harness.results.result import Sampling
from worker.secrets import host_allowed

ServerKind = Literal["generic", "vllm", "sglang", "tgi", "llamacpp", "trtllm"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BoundSecret(_Model):
    """A secret an admin bound to a route (live_app's `SecretBinding`), as the run spec
    carries it: where the worker reads it and the hosts it may be sent to, never the secret.
    The control plane puts one in only for a requester whose scope owns the route."""

    route: str = Field(max_length=64, description="the route the secret is bound to")
    name: str = Field(max_length=40, description="the binding's name on that route")
    kind: Literal["env", "file"]
    reference: str = Field(
        max_length=4096,
        description="env: a variable named SPECPACT_ENDPOINT_…; "
        "file: a path under SPECPACT_WORKER_SECRET_DIRS",
    )
    hosts: list[str] = Field(
        min_length=1, max_length=32, description="host or host:port the secret may be sent to"
    )


class OpenAIEngine(_Model):
    """A running OpenAI-compatible server (vLLM, SGLang, TGI, llama-server, anything)."""

    kind: Literal["openai"] = "openai"
    base_url: str = Field(description="e.g. http://127.0.0.1:8000 (with or without /v1)")
    model: str
    api: Literal["completions", "chat"] = "completions"
    server: ServerKind = Field(
        default="generic",
        description="which engine serves it: decides the speculation metrics read and the "
        "extra request fields that ask for per-chunk token ids",
    )
    api_key: str | None = None
    api_key_env: str | None = Field(
        default=None,
        description="no longer read on its own: a worker refuses a run whose spec names a secret "
        "outside `auth_binding` (worker/harness/endpoint_auth.py)",
    )
    api_key_file: str | None = Field(default=None, description="no longer read on its own, as api_key_env")
    auth_binding: BoundSecret | None = Field(
        default=None,
        description="the route's secret binding whose secret goes as Authorization: Bearer, only to "
        "base_url's host and only if the binding names it",
    )
    request_token_ids: bool = Field(
        default=True,
        description="ask the server for per-chunk token ids (vLLM `return_token_ids`) so tokens "
        "per chunk are exact; ignored for servers that have no such option",
    )
    extra_body: dict[str, Any] = Field(default_factory=dict, description="merged into every request")
    metrics_url: str | None = Field(default=None, description="Prometheus endpoint; default base_url/metrics")

    @model_validator(mode="after")
    def _only_bound_secrets(self) -> OpenAIEngine:
        """A secret named outside a binding, or a binding for another host, is refused with
        the spec, before anything is sent (the reader checks the host again when it reads)."""
        if self.api_key_env or self.api_key_file:
            raise ValueError(
                "api_key_env/api_key_file name a secret that is not a route's secret binding: "
                "a worker sends only bound secrets (auth_binding)"
            )
        if self.auth_binding is not None and not host_allowed(self.base_url, self.auth_binding.hosts):
            raise ValueError(
                f"the secret binding {self.auth_binding.name!r} is sent only to "
                f"{', '.join(self.auth_binding.hosts)}: not to this base_url's host"
            )
        return self


class ManagedEngine(_Model):
    """A server the worker launches from the contract's rendered argv, then stops."""

    kind: Literal["managed"] = "managed"
    argv: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str] = Field(
        default_factory=dict,
        description="files the argv names (TensorRT-LLM's YAML config), by that name: written to a "
        "private directory before launch, and the argv given their paths",
    )
    base_url: str = Field(description="where the launched server listens")
    model: str
    api: Literal["completions", "chat"] = "completions"
    server: ServerKind = "generic"
    request_token_ids: bool = True
    extra_body: dict[str, Any] = Field(default_factory=dict)
    health_path: str = "/health"
    startup_timeout_s: float = Field(default=900, gt=0)
    stop_timeout_s: float = Field(default=30, gt=0)


class TransformersEngine(_Model):
    """In-process Hugging Face Transformers, batch size 1 (assisted generation's limit)."""

    kind: Literal["transformers"] = "transformers"
    model: str = Field(
        default="builtin:gemma-3-270m",
        description="`builtin:gemma-3-270m` (the packaged GGUF) or a local model directory",
    )
    gguf_file: str | None = None
    method: Literal["none", "ngram", "draft_model", "early_exit"] = "none"
    prompt_lookup_num_tokens: int | None = Field(default=None, ge=1)
    max_matching_ngram_size: int | None = Field(default=None, ge=1)
    assistant_model: str | None = Field(default=None, description="local directory of the draft model")
    num_assistant_tokens: int | None = Field(default=None, ge=1)
    assistant_early_exit: int | None = Field(default=None, ge=1)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    threads: int | None = Field(default=None, ge=1)
    max_batch_size: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _method_params(self) -> TransformersEngine:
        needs = {
            "ngram": ("prompt_lookup_num_tokens", self.prompt_lookup_num_tokens),
            "draft_model": ("assistant_model", self.assistant_model),
            "early_exit": ("assistant_early_exit", self.assistant_early_exit),
        }
        if self.method in needs and needs[self.method][1] is None:
            raise ValueError(f"method {self.method!r} needs {needs[self.method][0]}")
        if self.max_batch_size != 1:
            raise ValueError(
                "the transformers engine runs batch size 1 only (assisted generation supports no batching)"
            )
        return self


Engine = Annotated[OpenAIEngine | ManagedEngine | TransformersEngine, Field(discriminator="kind")]


class BenchPlan(_Model):
    """One benchmark of one engine configuration over one workload.

    Levels are either closed-loop ``concurrency`` (N requests in flight, each slot sends
    its next request when the previous one ends) or open-loop ``rates`` (requests/s with
    Poisson or gamma arrivals, never waiting for responses).
    """

    engine: Engine
    workload: str = Field(
        description="a lane name (chat, summarization, ...) or a path to SpecPact workload JSONL "
        "(prompts or chat messages, conversations, arrival offsets)"
    )
    concurrency: list[Annotated[int, Field(ge=1)]] | None = None
    rates: list[Annotated[float, Field(gt=0)]] | None = None
    arrival: Literal["poisson", "gamma", "trace"] = Field(
        default="poisson",
        description="open-loop arrivals: seeded poisson or gamma at each rate, or the workload's own "
        "recorded arrival offsets (trace), scaled so that each level's mean rate is its rate",
    )
    gamma_shape: float = Field(default=1.0, gt=0, description="burstiness: < 1 burstier than Poisson")
    requests_per_level: int = Field(ge=1)
    max_tokens: int = Field(ge=1)
    ignore_eos: bool = Field(default=False, description="ask the server to run to max_tokens")
    sampling: Sampling | None = Field(default=None, description="default: the lane's own settings")
    seed: int = 0
    shuffle: bool = Field(
        default=True,
        description="false: use the workload's conversations in file order (warm-up first, then each "
        "level), as when the caller already cut it into a seeded slice",
    )
    warmup_requests: int = Field(default=2, ge=0)
    time_budget_s: float | None = Field(default=None, gt=0)
    request_timeout_s: float = Field(default=600, gt=0)
    stall_timeout_s: float = Field(default=60, gt=0, description="no bytes for this long fails a request")
    slo: SLO | None = None
    tokenizer: str | None = Field(
        default=None, description="local tokenizer dir, to count tokens when the server gives no usage"
    )
    memory_headroom_min_gib: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _levels(self) -> BenchPlan:
        if (self.concurrency is None) == (self.rates is None):
            raise ValueError("give exactly one of concurrency or rates")
        one_at_a_time = self.rates is None and all(c == 1 for c in self.concurrency or [])
        if self.engine.kind == "transformers" and not one_at_a_time:
            raise ValueError("the transformers engine runs one request at a time: use concurrency [1]")
        return self

    @property
    def level_values(self) -> list[tuple[str, float]]:
        if self.concurrency is not None:
            return [("concurrency", c) for c in self.concurrency]
        return [("rate", r) for r in self.rates or []]
