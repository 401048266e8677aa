"""Conformance as far as the engine reports it: one fact per contract field the probe held
against the engine, and a sentence naming the coverage ("3 of 4 fields verified;
llama.cpp b11434 does not report speculation.params.prompt_lookup_max").

A fact's state: `verified` (the engine said the contract's value), `differs` (it said
another), `speculates` (it said only that it speculates, as the contract says, not which
method), `not_reported` (that engine release does not say it), `not_reached` (nothing the
engine answered could be read). Kept apart from the readers (readers/), so that an engine
added there gets its coverage words without a rule of its own here: what a release
reports is what its reader compared, and what it does not is what it marked not reported."""

from __future__ import annotations

from typing import Any

VERIFIED, DIFFERS, SPECULATES = "verified", "differs", "speculates"
NOT_REPORTED, NOT_REACHED = "not_reported", "not_reached"
STATES = (VERIFIED, DIFFERS, SPECULATES, NOT_REPORTED, NOT_REACHED)


def field_facts(
    checked: dict[str, tuple[Any, Any]],
    partly: dict[str, tuple[Any, Any]],
    differences: list[dict[str, Any]],
    unknown: list[str],
    *,
    reached: bool,
    sources: list[str],
) -> list[dict[str, Any]]:
    """{field, state, expected, observed, source} per field. `checked`: path → (contract,
    engine) as compared; `partly`: path → (contract, what the engine said of it);
    `sources`: the reads that answered (the probe does not tie a value to one read, so a
    fact names the reads it may have come from)."""
    differ = {d["path"] for d in differences}
    source = ", ".join(sources) or None
    facts = []
    for path, (expected, observed) in checked.items():
        state = DIFFERS if path in differ else VERIFIED
        facts.append({"field": path, "state": state, "expected": expected, "observed": observed,
                      "source": source})  # fmt: skip
    for path, (expected, observed) in partly.items():
        facts.append({"field": path, "state": SPECULATES, "expected": expected, "observed": observed,
                      "source": source})  # fmt: skip
    for path in unknown:
        if path in checked or path in partly:
            continue
        state = NOT_REPORTED if reached else NOT_REACHED
        facts.append({"field": path, "state": state, "expected": None, "observed": None, "source": None})
    return facts


def coverage_words(
    facts: list[dict[str, Any]], engine: str, *, reached: bool, seen: list[str] | None = None
) -> str:
    """The coverage in words; says only what the facts show, and what else the reader saw
    (`seen`, e.g. drafting on a probe request). `engine`: the engine release named as the
    engine table names it (e.g. "llama.cpp b11434")."""
    if not reached:
        return f"not reached: nothing {engine} answered could be read"
    if not facts:
        return f"no field of the contract was held against {engine}"
    by_state: dict[str, list[dict[str, Any]]] = {state: [] for state in STATES}
    for f in facts:
        by_state[f["state"]].append(f)
    words = f"{len(by_state[VERIFIED])} of {len(facts)} fields verified"
    if by_state[DIFFERS]:
        words += "; differs: " + ", ".join(f["field"] for f in by_state[DIFFERS])
    for f in by_state[SPECULATES]:
        words += f"; {engine} says it is {f['observed']}, not which method"
    if by_state[NOT_REPORTED]:
        words += f"; {engine} does not report " + ", ".join(f["field"] for f in by_state[NOT_REPORTED])
    if seen:
        words += "; seen: " + "; ".join(seen)
    return words
