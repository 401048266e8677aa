"""TGI. /info (huggingface/text-generation-inference router/src/lib.rs, struct Info):
model_id and model_sha, no speculation field; `--speculate` is not reported anywhere.
tgi_request_skipped_tokens (backends/v3/src/backend.rs) counts accepted speculated tokens
per step: a summary, its _sum and _count."""

from __future__ import annotations

from contracts_app.document import ContractDocument
from live_app.conformance.fetch import Fetcher
from live_app.conformance.readers.metrics import named, read_metrics, total
from live_app.conformance.readers.models import compare_model
from live_app.conformance.readers.reading import METHOD, TOKENS, Counters, Reading


def read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    info = f.get(base, "/info")
    r.keep("info", info)
    if info.ok and isinstance(info.data, dict):
        if info.saw("model_id", info.data.get("model_id")) is not None:
            compare_model(r, doc, str(info.data["model_id"]))
        if doc.target.revision and info.saw("model_sha", info.data.get("model_sha")):
            r.compare("target.revision", doc.target.revision, info.data.get("model_sha"))
    r.not_reported(METHOD)
    if doc.speculation.method != "none":
        r.not_reported(TOKENS)
    read_ = read_metrics("tgi", r, f, base, metrics_url)
    name = named("tgi", "skipped")
    if read_ is not None and doc.speculation.num_speculative_tokens:
        samples, page = read_
        accepted = total(samples, name + "_sum", page)
        steps = total(samples, name + "_count", page)
        if accepted is not None and steps is not None:
            # Drafted = steps × the contract's --speculate N: TGI does not say its N.
            n = doc.speculation.num_speculative_tokens
            r.counters = Counters(f"tgi /metrics {name} (drafts of {n}, from the contract)",
                                  steps * n, accepted, steps)  # fmt: skip
