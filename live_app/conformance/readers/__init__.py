"""One reader per server engine: what that engine says about itself, held against the
contract version (`Reading.compare`), as far as that engine release reports it.

A reader is a function

    read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None

that asks the engine only through `f` (`f.get(base, "/path")`, `f.post_json(...)`: the
outbound policy, the probe's one deadline and size limit), keeps each answer as evidence
(`r.keep(name, fetched)`; `fetched.saw(field, value)` for each field it used), and for each
contract field:

- `r.compare(path, contract_value, engine_value)` where the engine says the value;
- `r.speculates(contract_method, speculating, said)` where it says only THAT it speculates;
- `r.not_reported(path)` for what that release does not say (listed in the coverage words).

It may set `r.counters` (cumulative speculation counters, for the acceptance watch). It
never raises for what the engine answers. Names it reads (paths, fields, metrics) come
from the engine's source or docs, cited beside the code; metric names from the engine
table (`contracts_app/document/engines/<engine>.py`, `readers.metrics`).

To add an engine: write `readers/<engine>.py` with its `read`, add it to `READERS` below
(the key is the format's engine name, one of `SERVER_ENGINES`); the probe, the coverage
words, the stored facts and the pages need nothing else."""

from __future__ import annotations

from collections.abc import Callable

from contracts_app.document import ContractDocument
from live_app.conformance.fetch import Fetcher
from live_app.conformance.readers import llamacpp, sglang, tgi, trtllm, vllm
from live_app.conformance.readers.reading import METHOD, TOKENS, Counters, Reading

Reader = Callable[[ContractDocument, Reading, Fetcher, str, str], None]

READERS: dict[str, Reader] = {
    "vllm": vllm.read,
    "sglang": sglang.read,
    "tgi": tgi.read,
    "llamacpp": llamacpp.read,
    "trtllm": trtllm.read,
}

__all__ = ["METHOD", "READERS", "TOKENS", "Counters", "Reader", "Reading"]
