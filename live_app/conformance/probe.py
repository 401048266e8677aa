"""What each engine says about its speculation, held against the contract version.

Expected values come from the contract's own render for its engine and release
(`contracts_app.document.adapters`): the engine-native keys and values that launch it.
Each key's contract path comes from the engine table (`engines/<engine>.py`, `Feature.field`);
metric and endpoint names too. A difference names the contract path and both values, in
the engine's vocabulary (`num_speculative_tokens: 5` in the contract, `3` on the engine).

The evidence is, per path read, its URL, status and the fields the comparison used
(`Fetched.saw`): never the engine's text, so that a probe pointed at something that is not
an engine shows nothing of what that answered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from contracts_app.document import ContractDocument, render
from contracts_app.document.adapters.llamacpp import spec_type
from contracts_app.document.adapters.vllm import speculative_config
from contracts_app.document.engines import KNOWLEDGE, asset_role
from live_app.conformance.coverage import coverage_words, field_facts
from live_app.conformance.fetch import Fetched, Fetcher, fact
from worker.harness.acceptance.prometheus import Metrics, parse

# Paths of the contract a probe holds against the engine where the engine says them.
METHOD = "speculation.method"
TOKENS = "speculation.num_speculative_tokens"


@dataclass
class Counters:
    """Cumulative speculation counters read from the engine (since its start)."""

    source: str
    draft_tokens: float | None
    accepted_tokens: float | None
    drafts: float | None


@dataclass
class Outcome:
    state: str  # conforms | drifted | unknown
    differences: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    counters: Counters | None = None
    probed_at: str = ""
    # Whether the engine answered anything readable: an `unknown` endpoint that did (TGI,
    # which reports no speculation settings) can be benchmarked; one that didn't can't.
    reached: bool = False
    facts: list[dict[str, Any]] = field(default_factory=list)  # coverage.field_facts
    coverage: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "differences": self.differences,
            "unknown": self.unknown,
            "probed_at": self.probed_at,
            "reason": self.reason,
            "evidence": self.evidence,
            "reached": self.reached,
            "facts": self.facts,
            "coverage": self.coverage,
        }


class _Reading:
    """Collects one probe's comparisons."""

    def __init__(self) -> None:
        self.differences: list[dict[str, Any]] = []
        self.unknown: list[str] = []
        self.checked: dict[str, tuple[Any, Any]] = {}  # path → (contract, engine) compared
        self.fetched: dict[str, Fetched] = {}
        self.failures: list[str] = []
        self.counters: Counters | None = None
        self.reached = False
        self.metrics_refused = ""  # why the endpoint's metrics_url may not be read, if so

    def compare(self, path: str, contract: Any, engine: Any) -> None:
        self.checked[path] = (fact(contract), fact(engine))
        if _norm(contract) != _norm(engine):
            self.differences.append({"path": path, "contract": contract, "engine": fact(engine)})

    def not_reported(self, path: str) -> None:
        if path not in self.checked and path not in self.unknown:
            self.unknown.append(path)

    def keep(self, name: str, fetched: Fetched) -> None:
        self.fetched[name] = fetched
        self.reached = self.reached or fetched.ok
        if fetched.failure and fetched.status != 404:
            self.failures.append(f"{fetched.url}: {fetched.failure}")

    def evidence(self) -> dict[str, Any]:
        return {name: fetched.facts() for name, fetched in self.fetched.items()}


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _field(engine: str, name: str, method: str) -> str:
    """The contract path an engine key or flag carries (asset paths keyed by role)."""
    kinds = ("key",) if engine == "vllm" else ("flag",)
    spelled = name if engine == "vllm" else "--" + name.replace("_", "-")
    feats = [f for f in KNOWLEDGE[engine].features if f.kind in kinds and spelled in f.spellings and f.field]
    feat = next((f for f in feats if f.method == method), None) or next(iter(feats), None)
    path = feat.field if feat and feat.field else f"speculation.{name}"
    if path.startswith("assets."):
        role = asset_role(method) or "draft"
        path = f"assets[role={role}].{path.split('.', 1)[1]}"
    return path


def _metric_names(engine: str) -> list[str]:
    return [f.name for f in KNOWLEDGE[engine].features if f.kind == "metric"]


def _named(engine: str, fragment: str) -> str:
    return next(n for n in _metric_names(engine) if fragment in n)


def _total(metrics: Metrics, name: str, seen: Fetched | None = None) -> float | None:
    """`name` summed over its series, a counter written with or without `_total`; None when
    the server exposes no such metric. Recorded on `seen` (the read's evidence)."""
    bare = name.removesuffix("_total")
    found = [t for n in dict.fromkeys((name, bare, bare + "_total")) if (t := metrics.total(n)) is not None]
    total = math.fsum(found) if found else None
    return seen.saw(name, total) if seen is not None else total


def _label_values(metrics: Metrics, name: str, label: str) -> set[str]:
    names = dict.fromkeys((name, name.removesuffix("_total") + "_total"))
    return {value for n in names for value in metrics.by_label(n, label)}


def _counters_from(engine: str, samples: Metrics, seen: Fetched) -> Counters | None:
    draft = _total(samples, _named(engine, "num_draft_tokens"), seen)
    accepted = _total(samples, _named(engine, "num_accepted_tokens_total"), seen)
    drafts = _total(samples, _named(engine, "num_drafts"), seen)
    if draft is None or accepted is None:
        return None
    return Counters(f"{engine} /metrics", draft, accepted, drafts)


def _positions(engine: str, samples: Metrics, seen: Fetched) -> int | None:
    name = _named(engine, "per_pos")
    values = _label_values(samples, name, "position")
    return seen.saw(f"{name}{{position}} count", len(values) if values else None)


def _metrics(
    engine: str, reading: _Reading, fetcher: Fetcher, base: str, metrics_url: str
) -> tuple[Metrics, Fetched] | None:
    if metrics_url and reading.metrics_refused:
        fetched = Fetched(url=metrics_url, failure=f"not read: metrics_url {reading.metrics_refused}")
    else:
        fetched = fetcher.get(metrics_url or base, "" if metrics_url else "/metrics", want_json=False)
    reading.keep("metrics", fetched)
    if not fetched.ok:
        return None
    samples = parse(fetched.text)
    # An engine's /metrics always carries its own metrics (the generation-token counter at
    # least); a page without any is not that engine's, and proves nothing about speculation.
    prefix = _metric_names(engine)[0].split(":")[0].split("_")[0]
    if not any(name.startswith(prefix) for name in samples.samples):
        fetched.failure = f"no {prefix} metrics on the page"
        reading.failures.append(f"{fetched.url}: no {prefix} metrics on the page")
        return None
    return samples, fetched


def _models_of(data: Any) -> list[str]:
    """The names a model list gives its first model: vLLM's ModelCard `root` is the model
    path and `id` the served name (vllm/entrypoints/openai/serving_models.py,
    show_available_models); other engines fill `id`."""
    cards = data.get("data") if isinstance(data, dict) else None
    if isinstance(cards, list) and cards and isinstance(cards[0], dict):
        return [str(cards[0][k]) for k in ("root", "id") if cards[0].get(k) is not None]
    return []


def _models_seen(models: Fetched) -> list[str]:
    names = _models_of(models.data)
    for key, name in zip(("data[0].root", "data[0].id"), [*names, None, None], strict=False):
        models.saw(key, name)
    return names


def _same_model(contract: str, *reported: str) -> bool:
    """A deployment often loads the contract's model from a local copy: the same name, or
    a path ending in the same last component, is the same model."""
    tail = contract.rstrip("/").rsplit("/", 1)[-1]
    return any(r == contract or r.rstrip("/").rsplit("/", 1)[-1] == tail for r in reported)


def _compare_model(r: _Reading, doc: ContractDocument, *reported: str) -> None:
    if reported:
        r.compare(
            "target.model",
            doc.target.model,
            doc.target.model if _same_model(doc.target.model, *reported) else reported[0],
        )


# vLLM ------------------------------------------------------------------------------
# /v1/models (serving_models.py), /server_info?config_format=json only with
# VLLM_SERVER_DEV_MODE=1 (vllm/entrypoints/serve/instrumentator/server_info.py: its
# `vllm_config.speculative_config` is the SpeculativeConfig), /metrics with the
# spec-decode counters only when speculation is configured and one `position` label per
# draft slot on _num_accepted_tokens_per_pos (vllm/v1/spec_decode/metrics.py).
def _vllm(doc: ContractDocument, r: _Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    models = f.get(base, "/v1/models")
    r.keep("v1_models", models)
    if models.ok:
        _compare_model(r, doc, *_models_seen(models))
    want = speculative_config(doc)
    info = f.get(base, "/server_info?config_format=json")
    r.keep("server_info", info)
    config = info.data.get("vllm_config") if info.ok and isinstance(info.data, dict) else None
    if isinstance(config, dict) and "speculative_config" in config:
        got = config.get("speculative_config")
        if not isinstance(got, dict) or not got:
            info.saw("vllm_config.speculative_config", "none")
            r.compare(METHOD, want.get("method", "none"), "none")
        elif not want:
            r.compare(METHOD, "none", info.saw("vllm_config.speculative_config.method", got.get("method")))
        else:
            for key, value in want.items():
                seen = info.saw(f"vllm_config.speculative_config.{key}", got.get(key))
                r.compare(_field("vllm", key, method), value, seen)
    elif info.ok:
        info.saw("vllm_config.speculative_config", None)
    read = _metrics("vllm", r, f, base, metrics_url)
    if read is not None:
        samples, page = read
        r.counters = _counters_from("vllm", samples, page)
        speculating = r.counters is not None
        if METHOD not in r.checked:
            if speculating != (method != "none"):
                r.compare(METHOD, method, "speculating (spec_decode counters)" if speculating else "none")
            elif not speculating:
                r.compare(METHOD, "none", "none")
            # Speculating as the contract says, but which method /metrics does not say.
        k = _positions("vllm", samples, page)
        if k is not None and method != "none" and TOKENS not in r.checked:
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, k)
    for key in want:
        r.not_reported(_field("vllm", key, method))
    r.not_reported(METHOD)


# SGLang ----------------------------------------------------------------------------
# /server_info (/get_server_info before 0.5.6, deprecated after) is
# dataclasses.asdict(server_args) plus scheduler info and internal_states
# (sgl-project/sglang python/sglang/srt/entrypoints/http_server.py): the speculative_*
# server args are the rendered flags' own names.
def _sglang(doc: ContractDocument, r: _Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    info = f.get(base, "/server_info")
    if info.status == 404:
        info = f.get(base, "/get_server_info")
    r.keep("server_info", info)
    want = render(doc, "sglang").config
    if info.ok and isinstance(info.data, dict):
        args = info.data
        if info.saw("model_path", args.get("model_path")) is not None:
            _compare_model(r, doc, str(args["model_path"]))
        algorithm = info.saw("speculative_algorithm", args.get("speculative_algorithm"))
        if not want or algorithm in (None, "", "NONE"):
            r.compare(METHOD, want.get("speculative_algorithm", "none"), algorithm or "none")
        else:
            for key, value in want.items():
                r.compare(_field("sglang", key, method), value, info.saw(key, args.get(key)))
        states = args.get("internal_states")
        if isinstance(states, list):  # one per DP rank: its acceptance length since start
            lengths = [s.get("avg_spec_accept_length") for s in states if isinstance(s, dict)]
            info.saw(
                "internal_states[].avg_spec_accept_length", [v for v in lengths if v is not None] or None
            )
    for key in want:
        r.not_reported(_field("sglang", key, method))
    r.not_reported(METHOD)


# TGI -------------------------------------------------------------------------------
# /info (huggingface/text-generation-inference router/src/lib.rs, struct Info): model_id
# and model_sha, no speculation field; `--speculate` is not reported anywhere.
# tgi_request_skipped_tokens (backends/v3/src/backend.rs) counts accepted speculated
# tokens per step: a summary, its _sum and _count.
def _tgi(doc: ContractDocument, r: _Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    info = f.get(base, "/info")
    r.keep("info", info)
    if info.ok and isinstance(info.data, dict):
        if info.saw("model_id", info.data.get("model_id")) is not None:
            _compare_model(r, doc, str(info.data["model_id"]))
        if doc.target.revision and info.saw("model_sha", info.data.get("model_sha")):
            r.compare("target.revision", doc.target.revision, info.data.get("model_sha"))
    r.not_reported(METHOD)
    if doc.speculation.method != "none":
        r.not_reported(TOKENS)
    read = _metrics("tgi", r, f, base, metrics_url)
    name = _named("tgi", "skipped")
    if read is not None and doc.speculation.num_speculative_tokens:
        samples, page = read
        accepted = _total(samples, name + "_sum", page)
        steps = _total(samples, name + "_count", page)
        if accepted is not None and steps is not None:
            # Drafted = steps × the contract's --speculate N: TGI does not say its N.
            n = doc.speculation.num_speculative_tokens
            r.counters = Counters(f"tgi /metrics {name} (drafts of {n}, from the contract)",
                                  steps * n, accepted, steps)  # fmt: skip


# llama.cpp -------------------------------------------------------------------------
# /slots: each slot's `speculative` flag and, once it served a task, its `params` with
# the dotted speculative keys ("speculative.types" now, "speculative.n_max" in older
# builds); /props: model_path (ggml-org/llama.cpp tools/server/server-task.cpp
# task_params::to_json, tools/server/server-context.cpp). /metrics (with --metrics):
# llamacpp:spec_decode_* counters and the per-position counter, one label per draft slot.
def _llamacpp(doc: ContractDocument, r: _Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    props = f.get(base, "/props")
    r.keep("props", props)
    if props.ok and isinstance(props.data, dict) and props.saw("model_path", props.data.get("model_path")):
        _compare_model(r, doc, str(props.data["model_path"]))
    slots = f.get(base, "/slots")
    r.keep("slots", slots)
    want_type = spec_type(doc) or ("none" if method == "none" else method)
    slot = slots.data[0] if slots.ok and isinstance(slots.data, list) and slots.data else None
    if isinstance(slot, dict) and isinstance(slot.get("speculative"), bool):
        params: dict[str, Any] = slot["params"] if isinstance(slot.get("params"), dict) else {}
        slots.saw("[0].speculative", slot["speculative"])
        types = slots.saw("[0].params.speculative.types", params.get("speculative.types"))
        if not slot["speculative"]:
            r.compare(METHOD, want_type, "none")
        elif method == "none":
            r.compare(METHOD, "none", types or "speculative")
        elif isinstance(types, str):
            got = ",".join(t for t in types.split(",") if t.strip() and t.strip() != "none") or "none"
            r.compare(METHOD, want_type, got)
        n_max = slots.saw("[0].params.speculative.n_max", params.get("speculative.n_max"))
        if isinstance(n_max, int) and method != "none":
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, n_max)
    read = _metrics("llamacpp", r, f, base, metrics_url)
    if read is not None:
        samples, page = read
        r.counters = _counters_from("llamacpp", samples, page)
        k = _positions("llamacpp", samples, page)
        if k is not None and method != "none" and TOKENS not in r.checked:
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, k)
    if method != "none":
        r.not_reported(METHOD)
        r.not_reported(TOKENS)
        p = doc.speculation.params
        if p and p.prompt_lookup_max is not None:
            r.not_reported("speculation.params.prompt_lookup_max")
    else:
        r.not_reported(METHOD)


READERS = {"vllm": _vllm, "sglang": _sglang, "tgi": _tgi, "llamacpp": _llamacpp}


def probe_engine(
    doc: ContractDocument,
    *,
    engine: str,
    base_url: str,
    metrics_url: str,
    fetcher: Fetcher,
    metrics_refused: str = "",
) -> Outcome:
    """Read the engine and compare. Never raises for what the engine answers: an
    unreachable or unreadable engine is `unknown` with the reason. `metrics_refused`:
    why `metrics_url` may not be read (live_app.metrics_host); it is then not asked."""
    now = datetime.now(UTC).isoformat()
    reading = _Reading()
    reading.metrics_refused = metrics_refused
    if doc.target.engine != engine:
        # The contract renders for its own engine only; another engine serves another route.
        reading.compare("target.engine", doc.target.engine, engine)
    else:
        READERS[engine](doc, reading, fetcher, base_url, metrics_url)
    if reading.differences:
        state = "drifted"
    elif METHOD not in reading.checked and TOKENS not in reading.checked:
        state = "unknown"
    else:
        state = "conforms"
    reason = "; ".join(reading.failures)
    if reading.fetched and not reading.reached:
        # Nothing answered (404 on every path, refused, timed out): not "does not report".
        every = [f"{f.url}: {f.failure}" for f in reading.fetched.values() if f.failure]
        reason = "not reached: " + ("; ".join(every) or "nothing was asked")
    elif state == "unknown" and not reason:
        reason = f"{engine} does not report the speculation settings: " + ", ".join(reading.unknown)
    sources = [name for name, f in reading.fetched.items() if f.ok]
    facts = field_facts(reading.checked, reading.differences, reading.unknown,
                        reached=reading.reached, sources=sources)  # fmt: skip
    return Outcome(
        state=state,
        facts=facts,
        coverage=coverage_words(facts, engine, reached=reading.reached),
        differences=reading.differences,
        unknown=reading.unknown,
        evidence=reading.evidence(),
        reason=reason,
        counters=reading.counters,
        probed_at=now,
        reached=reading.reached,
    )
