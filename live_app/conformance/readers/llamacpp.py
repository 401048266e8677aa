"""llama.cpp (llama-server).

- `/props`: `model_path` (ggml-org/llama.cpp tools/server/server-context.cpp).
- `POST /completion`: a probe completion of `PROBE_TOKENS` tokens on a repetitive prompt.
  Its `timings` carry `draft_n` and `draft_n_accepted` when the request drafted, and only
  then (`result_timings::to_json` in tools/server/server-task.cpp writes them `if (draft_n
  > 0)`); added by ggml-org/llama.cpp#12603 (2025-03), in builds from b4990 on, so in every
  build the engine table knows (its oldest is b7895). The answer's `id_slot` names the
  slot that served it.
- `/slots`: each slot's `speculative` (`server_slot::to_json`: `can_speculate()`, true when
  the server was started with a speculation type, FACTS.md "Measured here, turn 3") and,
  once it served a task, its `params` with the dotted speculative keys ("speculative.types"
  in b11434, "speculative.n_max" in older builds; `task_params::to_json`). Read after the
  probe completion, so that the slot has served a task.
- `/metrics` (with `--metrics`): the llamacpp:spec_decode_* counters and the per-position
  counter, one `position` label per draft slot.

Where a build says only THAT it speculates (`speculative: true`, no speculation params),
that is held against the contract (method `none` ⇒ false; a speculating method ⇒ true) and
the probe completion's `timings.draft_n` shows whether drafting happens."""

from __future__ import annotations

from typing import Any

from contracts_app.document import ContractDocument
from contracts_app.document.adapters.llamacpp import spec_type
from live_app.conformance.fetch import Fetched, Fetcher
from live_app.conformance.readers.metrics import counters_from, positions, read_metrics
from live_app.conformance.readers.models import compare_model
from live_app.conformance.readers.reading import METHOD, TOKENS, Reading

# A short, repetitive prompt: every n-gram type finds its continuation in it, and a draft
# model drafts on any prompt. A few tokens are enough to see drafting, and cost little.
PROBE_PROMPT = " ".join(["one two three four five six seven eight."] * 6) + " one two three"
PROBE_TOKENS = 8


def _completion(r: Reading, f: Fetcher, base: str) -> tuple[Fetched, int | None, int | None]:
    """(the read, draft_n, id_slot) of the probe completion; draft_n is 0 where the answer
    has timings without it (nothing was drafted), None where there are no timings."""
    body = {"prompt": PROBE_PROMPT, "n_predict": PROBE_TOKENS, "temperature": 0}
    done = f.post_json(base, "/completion", body)
    r.keep("probe_completion", done)
    data = done.data if done.ok and isinstance(done.data, dict) else {}
    timings = data.get("timings") if isinstance(data.get("timings"), dict) else None
    slot_id = done.saw("id_slot", data.get("id_slot") if isinstance(data.get("id_slot"), int) else None)
    if timings is None:
        if done.ok:
            done.saw("timings", None)
        return done, None, slot_id
    drafted = timings.get("draft_n")
    done.saw("timings.predicted_n", timings.get("predicted_n"))
    done.saw("timings.draft_n", drafted if isinstance(drafted, int) else 0)
    done.saw("timings.draft_n_accepted", timings.get("draft_n_accepted") if isinstance(drafted, int) else 0)
    return done, (drafted if isinstance(drafted, int) else 0), slot_id


def _slot(slots: Fetched, slot_id: int | None) -> tuple[int, dict[str, Any] | None]:
    """(its index, the slot) that served the probe completion, else the first."""
    listed = slots.data if slots.ok and isinstance(slots.data, list) else []
    at = next((i for i, s in enumerate(listed) if isinstance(s, dict) and s.get("id") == slot_id), 0)
    slot = listed[at] if at < len(listed) and isinstance(listed[at], dict) else None
    return at, slot


def _drafting(done: Fetched, drafted: int | None) -> str | None:
    """What the probe completion showed of drafting, in words; None without timings."""
    if drafted is None:
        return None
    if drafted == 0:
        return f"nothing drafted in a probe completion of {PROBE_TOKENS} tokens"
    accepted = done.fields.get("timings.draft_n_accepted")
    return f"{drafted} tokens drafted, {accepted} accepted, in a probe completion of {PROBE_TOKENS} tokens"


def read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    props = f.get(base, "/props")
    r.keep("props", props)
    if props.ok and isinstance(props.data, dict) and props.saw("model_path", props.data.get("model_path")):
        compare_model(r, doc, str(props.data["model_path"]))
    done, drafted, slot_id = _completion(r, f, base)
    drafting = _drafting(done, drafted)
    if drafting:
        r.seen.append(drafting)
    slots = f.get(base, "/slots")
    r.keep("slots", slots)
    want_type = spec_type(doc) or ("none" if method == "none" else method)
    at, slot = _slot(slots, slot_id)
    if slot is not None and isinstance(slot.get("speculative"), bool):
        params: dict[str, Any] = slot["params"] if isinstance(slot.get("params"), dict) else {}
        slots.saw(f"[{at}].speculative", slot["speculative"])
        types = slots.saw(f"[{at}].params.speculative.types", params.get("speculative.types"))
        if not slot["speculative"]:
            r.compare(METHOD, want_type, "none")
        elif method == "none":
            r.compare(METHOD, "none", types or "speculative (/slots)")
        elif isinstance(types, str) and types.strip() not in ("", "none"):
            got = ",".join(t.strip() for t in types.split(",") if t.strip() and t.strip() != "none")
            r.compare(METHOD, want_type, got)
        else:
            r.speculates(want_type, True, "speculating (/slots: speculative)")
        n_max = slots.saw(f"[{at}].params.speculative.n_max", params.get("speculative.n_max"))
        if isinstance(n_max, int) and method != "none":
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, n_max)
    elif drafted:
        # No /slots (disabled, or not this build's): the completion drafted, so it speculates.
        r.speculates(want_type, True, "speculating (timings.draft_n of the probe completion)")
    read_ = read_metrics("llamacpp", r, f, base, metrics_url)
    if read_ is not None:
        samples, page = read_
        r.counters = counters_from("llamacpp", samples, page)
        k = positions("llamacpp", samples, page)
        if k is not None and method != "none" and TOKENS not in r.checked:
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, k)
    r.not_reported(METHOD)
    if method != "none":
        r.not_reported(TOKENS)
        p = doc.speculation.params
        if p and p.prompt_lookup_max is not None:
            r.not_reported("speculation.params.prompt_lookup_max")
