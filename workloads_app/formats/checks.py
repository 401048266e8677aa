"""Checks of a whole workload against what the target can take."""

from __future__ import annotations

from worker.workloads.records import estimate_tokens, record_tokens
from workloads_app.formats.reading import Imported
from workloads_app.formats.scratch import SHOWN

Problem = tuple[int, str, str]


def context_problems(imported: Imported, context_tokens: int) -> tuple[list[Problem], int, list[Problem]]:
    """(errors, how many lines have one, warnings) against a target context of
    `context_tokens` (estimated tokens): a prompt longer than the context by itself is an
    error; one that fits but not with its conversation's history and its `max_tokens` is a
    warning (the replay's history is the target's own answers, which may be shorter).
    Records are read a conversation at a time; the first SHOWN of each are kept."""
    scratch = imported.scratch
    history = 0
    current: str | None = None
    for number, r in imported.iter_records(by_conversation=True):
        if r.conversation != current or r.conversation is None:
            history, current = 0, r.conversation
        own = record_tokens(r)
        out = r.max_tokens or 0
        if own > context_tokens:
            message = f"the prompt is ~{own} tokens, longer than the target's context of {context_tokens}"
            scratch.problem(number, "", message, warning=False, kind="context")
        elif history + own + out > context_tokens:
            message = (
                f"~{history + own} tokens with its history, plus max_tokens {out}, "
                f"exceed the target's context of {context_tokens}"
            )
            scratch.problem(number, "", message, warning=True, kind="context")
        if r.conversation is not None:
            history += own + (estimate_tokens(r.reference) if r.reference else out)
    errors, lines = scratch.problems(kind="context")
    warnings, _ = scratch.problems(warning=True, kind="context")
    return errors[:SHOWN], lines, warnings
