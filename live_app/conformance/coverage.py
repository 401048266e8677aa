"""Conformance as far as the engine reports it: one fact per contract field the probe held
against the engine (verified, differs, not reported by that engine, not reached) and a
sentence naming the coverage ("2 of 3 fields verified; llamacpp does not report …").

Kept apart from the engine readers (probe.py) so that an engine added there gets its
coverage words without a rule of its own here: what an engine release reports is what its
reader compared (`_Reading.checked`), and what it does not is what it marked not reported."""

from __future__ import annotations

from typing import Any

VERIFIED, DIFFERS, NOT_REPORTED, NOT_REACHED = "verified", "differs", "not_reported", "not_reached"


def field_facts(
    checked: dict[str, tuple[Any, Any]],
    differences: list[dict[str, Any]],
    unknown: list[str],
    *,
    reached: bool,
    sources: list[str],
) -> list[dict[str, Any]]:
    """{field, state, expected, observed, source} per field. `checked`: path → (contract,
    engine) as compared; `sources`: the reads that answered (the probe does not tie a value
    to one read, so a fact names the reads it may have come from)."""
    differ = {d["path"] for d in differences}
    source = ", ".join(sources) or None
    facts = []
    for path, (expected, observed) in checked.items():
        state = DIFFERS if path in differ else VERIFIED
        facts.append({"field": path, "state": state, "expected": expected, "observed": observed,
                      "source": source})  # fmt: skip
    for path in unknown:
        state = NOT_REPORTED if reached else NOT_REACHED
        facts.append({"field": path, "state": state, "expected": None, "observed": None, "source": None})
    return facts


def coverage_words(facts: list[dict[str, Any]], engine: str, *, reached: bool) -> str:
    """The coverage in words; says only what the facts show."""
    if not reached:
        return f"not reached: nothing {engine} answered could be read"
    verified = [f["field"] for f in facts if f["state"] == VERIFIED]
    differs = [f["field"] for f in facts if f["state"] == DIFFERS]
    silent = [f["field"] for f in facts if f["state"] == NOT_REPORTED]
    words = f"{len(verified)} of {len(facts)} fields verified"
    if differs:
        words += "; differs: " + ", ".join(differs)
    if silent:
        words += f"; {engine} does not report " + ", ".join(silent)
    return words
