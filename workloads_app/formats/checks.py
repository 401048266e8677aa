"""Checks of a whole workload against what the target can take."""

from __future__ import annotations

from collections.abc import Sequence

from worker.workloads.records import Record, estimate_tokens, record_tokens

Problem = tuple[int, str, str]


def context_problems(
    records: Sequence[Record], numbers: Sequence[int], context_tokens: int
) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) against a target context of `context_tokens` (estimated tokens):
    a prompt longer than the context by itself is an error; one that fits but not with its
    conversation's history and its `max_tokens` is a warning (the replay's history is the
    target's own answers, which may be shorter)."""
    errors: list[Problem] = []
    warnings: list[Problem] = []
    history: dict[str, int] = {}
    ordered = sorted(
        zip(numbers, records, strict=True), key=lambda p: (p[1].conversation or "", p[1].turn or 0)
    )
    for number, r in ordered:
        own = record_tokens(r)
        past = history.get(r.conversation, 0) if r.conversation is not None else 0
        out = r.max_tokens or 0
        if own > context_tokens:
            errors.append(
                (
                    number,
                    "",
                    f"the prompt is ~{own} tokens, longer than the target's context of {context_tokens}",
                )
            )
        elif past + own + out > context_tokens:
            warnings.append(
                (
                    number,
                    "",
                    f"~{past + own} tokens with its history, plus max_tokens {out}, "
                    f"exceed the target's context of {context_tokens}",
                )
            )
        if r.conversation is not None:
            answer = estimate_tokens(r.reference) if r.reference else out
            history[r.conversation] = past + own + answer
    return sorted(errors), sorted(warnings)
