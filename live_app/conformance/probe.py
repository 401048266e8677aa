"""What each engine says about its speculation, held against the contract version.

Expected values come from the contract's own render for its engine and release
(`contracts_app.document.adapters`): the engine-native keys and values that launch it.
Each key's contract path comes from the engine table (`engines/<engine>.py`, `Feature.field`);
metric and endpoint names too. A difference names the contract path and both values, in
the engine's vocabulary (`num_speculative_tokens: 5` in the contract, `3` on the engine).
The readers, one per engine, are in `readers/` (its docstring says how to add one).

States: `drifted` when a field the engine reports differs from the contract; `conforms`
when the engine differs in nothing it reports and reports something (with its coverage:
which fields were verified and which that engine release does not report); `unknown`
when it reports nothing held against the contract, or was not reached (404 on every
path, refused, timed out: its own reason, "not reached: …").

The evidence is, per path read, its URL, status and the fields the comparison used
(`Fetched.saw`): never the engine's text, so that a probe pointed at something that is not
an engine shows nothing of what that answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from contracts_app.document import ContractDocument
from contracts_app.document.engines import KNOWLEDGE
from contracts_app.document.rules_release import view_of
from live_app.conformance.coverage import coverage_words, field_facts
from live_app.conformance.fetch import Fetcher
from live_app.conformance.readers import READERS, Counters, Reading

__all__ = ["READERS", "Counters", "Outcome", "probe_engine"]


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


def engine_label(doc: ContractDocument, engine: str) -> str:
    """The engine release the coverage names: the contract's, as the engine table spells
    it ("llama.cpp b11434"); the engine alone where the contract names no release it knows."""
    if doc.target.engine != engine or engine not in KNOWLEDGE:
        return KNOWLEDGE[engine].name if engine in KNOWLEDGE else engine
    view = view_of(doc)
    return KNOWLEDGE[engine].name if view.assumed else view.label


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
    reading = Reading()
    reading.metrics_refused = metrics_refused
    if doc.target.engine != engine:
        # The contract renders for its own engine only; another engine serves another route.
        reading.compare("target.engine", doc.target.engine, engine)
    else:
        READERS[engine](doc, reading, fetcher, base_url, metrics_url)
    label = engine_label(doc, engine)
    if reading.differences:
        state = "drifted"
    elif reading.reached and (reading.checked or reading.partly):
        state = "conforms"
    else:
        state = "unknown"
    reason = "; ".join(reading.failures)
    if reading.fetched and not reading.reached:
        # Nothing answered (404 on every path, refused, timed out): not "does not report".
        every = [f"{f.url}: {f.failure}" for f in reading.fetched.values() if f.failure]
        reason = "not reached: " + ("; ".join(every) or "nothing was asked")
    elif state == "unknown" and not reason:
        reason = f"{label} does not report the speculation settings: " + ", ".join(reading.unknown)
    sources = [name for name, f in reading.fetched.items() if f.ok]
    facts = field_facts(reading.checked, reading.partly, reading.differences, reading.unknown,
                        reached=reading.reached, sources=sources)  # fmt: skip
    # Nothing asked (the endpoint's engine is not the contract's): the facts say it all.
    told = reading.reached or not reading.fetched
    return Outcome(
        state=state,
        facts=facts,
        coverage=coverage_words(facts, label, reached=told, seen=reading.seen),
        differences=reading.differences,
        unknown=reading.unknown,
        evidence=reading.evidence(),
        reason=reason,
        counters=reading.counters,
        probed_at=now,
        reached=reading.reached,
    )
