"""Workloads: the built-in lane prompt sets and user-supplied JSONL.

A JSONL line is an object with at least ``prompt`` (a non-empty string). Optional:
``id`` (unique; default ``line-N``), ``lane``, ``version``, ``sampling``
(``{temperature, top_p}``) and ``max_tokens``. The built-in lanes carry all of them.
Errors name the line: ``prompts.jsonl line 7: prompt: ...``.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from worker.harness.results import Sampling

LANES = ("chat", "summarization", "extraction", "document_review", "agent")


class WorkloadError(ValueError):
    """A workload that can't be used, with the line number where there is one."""


class PromptLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1)
    prompt: str = Field(min_length=1)
    lane: str | None = None
    version: str | None = None
    sampling: Sampling | None = None
    max_tokens: int | None = Field(default=None, ge=1)


class Prompt(BaseModel):
    id: str
    text: str


class Workload(BaseModel):
    name: str
    version: str | None
    prompts: list[Prompt]
    sampling: Sampling | None = Field(description="the lane's settings; None for JSONL that gives none")
    max_tokens: int | None


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


def parse_jsonl(text: str, *, source: str, name: str) -> Workload:
    lines: list[PromptLine] = []
    ids: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{source} line {number}"
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise WorkloadError(f"{where}: expected a JSON object")
        try:
            line = PromptLine.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            path = ".".join(str(p) for p in first["loc"]) or "(line)"
            raise WorkloadError(f"{where}: {path}: {first['msg']}") from None
        line.id = line.id or f"line-{number}"
        if line.id in ids:
            raise WorkloadError(f"{where}: duplicate id {line.id!r}")
        ids.add(line.id)
        lines.append(line)
    if not lines:
        raise WorkloadError(f"{source}: no prompts")
    versions = {ln.version for ln in lines}
    samplings = {ln.sampling.model_dump_json() if ln.sampling else None for ln in lines}
    if len(versions) > 1:
        raise WorkloadError(f"{source}: lines disagree on version: {sorted(map(str, versions))}")
    if len(samplings) > 1:
        raise WorkloadError(f"{source}: lines disagree on sampling settings")
    return Workload(
        name=name,
        version=lines[0].version,
        prompts=[Prompt(id=ln.id or "", text=ln.prompt) for ln in lines],
        sampling=lines[0].sampling,
        max_tokens=max((ln.max_tokens for ln in lines if ln.max_tokens), default=None),
    )
