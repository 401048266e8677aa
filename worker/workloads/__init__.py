"""Workloads: the built-in lane prompt sets, user JSONL and registered workloads.

Every file is SpecPact workload JSONL (``worker/workloads/records.py`` has the format):
a prompt or chat messages per line, optionally with ``max_tokens``, a reference output,
a conversation id and turn, and an arrival offset. The built-in lanes are plain prompts
with ``id``, ``lane``, ``version`` and ``sampling``. Errors name the line:
``prompts.jsonl line 7: prompt: ...``.

A loaded workload is a list of conversations (a single prompt is a conversation of one
turn). How a turn is sent, with the target's own earlier answers as its history:
- chat API: the earlier turns' messages, each followed by the target's answer as an
  ``assistant`` message, then this turn's messages;
- completions API and the in-process engine (plain text, no chat template: the built-in
  Gemma GGUF has none): the earlier turns' text, each followed by the target's answer and
  a newline, then this turn's text. A prompt's text is the prompt itself; messages read
  ``System: …`` / ``User: …`` / ``Assistant: …`` lines ending in ``Assistant:``.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from worker.harness.results.result import Sampling
from worker.workloads.records import (
    LineError,
    Message,
    Record,
    SyntheticPrompt,
    WorkloadError,
    default_id,
    parse_records,
    synthesize,
)

LANES = ("chat", "summarization", "extraction", "document_review", "agent")

__all__ = [
    "LANES",
    "Conversation",
    "LineError",
    "Prompt",
    "Turn",
    "Workload",
    "WorkloadError",
    "load_workload",
    "parse_jsonl",
]

_LABEL = {"system": "System", "user": "User", "assistant": "Assistant"}


class Prompt(BaseModel):
    id: str
    text: str


class Turn(BaseModel):
    """One request of a conversation: what it adds to the history."""

    model_config = ConfigDict(frozen=True)

    id: str
    prompt: str | None = None
    messages: list[Message] | None = None
    synthetic: SyntheticPrompt | None = None
    max_tokens: int | None = None
    arrival_s: float | None = None

    def own_messages(self) -> list[dict[str, str]]:
        if self.messages is not None:
            return [{"role": m.role, "content": m.content} for m in self.messages]
        return [{"role": "user", "content": self.own_text()}]

    def own_text(self) -> str:
        if self.prompt is not None:
            return self.prompt
        if self.synthetic is not None:
            return synthesize(self.synthetic)
        lines = []
        for m in self.messages or []:
            sep = "\n\n" if m.role == "system" else "\n"
            lines.append(f"{_LABEL[m.role]}: {m.content}{sep}")
        return "".join(lines) + "Assistant:"


class Conversation(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    turns: list[Turn] = Field(min_length=1)

    @property
    def arrival_s(self) -> float | None:
        return self.turns[0].arrival_s

    def chat_messages(self, k: int, answers: Sequence[str]) -> list[dict[str, str]]:
        """Turn k's messages: the earlier turns, each answered by `answers[i]`."""
        out: list[dict[str, str]] = []
        for i in range(k):
            out += self.turns[i].own_messages()
            out.append({"role": "assistant", "content": answers[i]})
        return out + self.turns[k].own_messages()

    def prompt_text(self, k: int, answers: Sequence[str]) -> str:
        parts = []
        for i in range(k):
            parts += [self.turns[i].own_text(), answers[i], "\n"]
        return "".join([*parts, self.turns[k].own_text()])

    def truncated(self, n: int) -> Conversation:
        return self if n >= len(self.turns) else Conversation(id=self.id, turns=self.turns[:n])


class Workload(BaseModel):
    name: str
    version: str | None
    sampling: Sampling | None = Field(description="the lane's settings; None for JSONL that gives none")
    max_tokens: int | None
    conversations: list[Conversation]
    digest: str | None = Field(default=None, description="sha256 of a registered workload's canonical form")

    @property
    def prompts(self) -> list[Prompt]:
        """Every request by itself (no history), in file order within each conversation."""
        return [Prompt(id=t.id, text=t.own_text()) for c in self.conversations for t in c.turns]

    @property
    def requests(self) -> int:
        return sum(len(c.turns) for c in self.conversations)

    @property
    def multi_turn(self) -> bool:
        return any(len(c.turns) > 1 for c in self.conversations)

    @property
    def has_arrivals(self) -> bool:
        """A trace: every conversation has an arrival offset (its first turn's)."""
        return all(c.arrival_s is not None for c in self.conversations)


def load_workload(name_or_path: str) -> Workload:
    """A built-in lane by name, or a JSONL file by path."""
    if name_or_path in LANES:
        text = files("worker.workloads").joinpath(f"{name_or_path}.jsonl").read_text(encoding="utf-8")
        return parse_jsonl(text, source=name_or_path, name=name_or_path)
    path = Path(name_or_path)
    if path.suffix != ".jsonl" or not path.is_file():
        raise WorkloadError(
            f"unknown workload {name_or_path!r}: give a lane ({', '.join(LANES)}) or an existing .jsonl file"
        )
    return parse_jsonl(path.read_text(encoding="utf-8"), source=str(path), name=path.stem)


def _turn(number: int, record: Record) -> Turn:
    return Turn(
        id=default_id(number, record),
        prompt=record.prompt,
        messages=record.messages,
        synthetic=record.synthetic_prompt,
        max_tokens=record.max_tokens,
        arrival_s=record.arrival_s,
    )


def conversations_of(records: Sequence[tuple[int, Record]]) -> list[Conversation]:
    """Conversations in the order they first appear, turns in turn order."""
    grouped: dict[str, list[tuple[int, int, Record]]] = {}
    order: list[str] = []
    for number, record in records:
        key = f"c:{record.conversation}" if record.conversation is not None else f"l:{number}"
        if key not in grouped:
            grouped[key] = []
            order.append(key)
        grouped[key].append((record.turn or 0, number, record))
    out = []
    for key in order:
        turns = sorted(grouped[key], key=lambda t: t[0])
        cid = key[2:] if key.startswith("c:") else default_id(turns[0][1], turns[0][2])
        out.append(Conversation(id=cid, turns=[_turn(n, r) for _, n, r in turns]))
    return out


def parse_jsonl(text: str, *, source: str, name: str, digest: str | None = None) -> Workload:
    records = parse_records(text, source=source)
    lines = [r for _, r in records]
    versions = {r.version for r in lines}
    samplings = {r.sampling.model_dump_json() if r.sampling else None for r in lines}
    if len(versions) > 1:
        raise WorkloadError(f"{source}: lines disagree on version: {sorted(map(str, versions))}")
    if len(samplings) > 1:
        raise WorkloadError(f"{source}: lines disagree on sampling settings")
    return Workload(
        name=name,
        version=lines[0].version,
        sampling=lines[0].sampling,
        max_tokens=max((r.max_tokens for r in lines if r.max_tokens), default=None),
        conversations=conversations_of(records),
        digest=digest,
    )
