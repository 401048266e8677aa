"""Engines their makers no longer develop (issue 23): a route on one still validates and
renders, and is told so, with the translation of its contract to the engines that replace
it (`adapters/translate.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from .engines import ENGINE_NAMES
from .errors import ContractError, FieldError
from .schema import ContractDocument


@dataclass(frozen=True)
class Archived:
    engine: str
    status: str
    source: str
    successors: tuple[str, ...]


# TGI: huggingface/text-generation-inference README (maintenance notice: minor bug fixes and
# documentation only, from 2025-12-11; it recommends vLLM, SGLang and local engines), and the
# repository archived read-only on 2026-03-21 (FACTS.md, "Measured here, turn 3").
ARCHIVED: dict[str, Archived] = {
    "tgi": Archived(
        "tgi",
        "in maintenance mode from 2025-12-11 and archived (read-only) on 2026-03-21",
        "huggingface/text-generation-inference README",
        # TensorRT-LLM joins once the table has it (issue 23 point 1): not assumed here.
        tuple(e for e in ("vllm", "sglang", "trtllm") if e in ENGINE_NAMES),
    ),
}


@dataclass(frozen=True)
class Translation:
    """The contract rendered for a successor engine: its command, or why it cannot be."""

    engine: str
    name: str
    shell: str | None
    lossy: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


def notice(doc: ContractDocument) -> str | None:
    archived = ARCHIVED.get(doc.target.engine)
    if archived is None:
        return None
    names = " or ".join(ENGINE_NAMES[e] for e in archived.successors)
    return (
        f"{ENGINE_NAMES[archived.engine]} is {archived.status} ({archived.source}): no fixes or releases "
        f"will come; the contract translates to {names} (specpact render --engine "
        f"{'|'.join(archived.successors)})"
    )


def warnings(doc: ContractDocument) -> list[FieldError]:
    text = notice(doc)
    return [FieldError("target.engine", text)] if text else []


def translations(doc: ContractDocument) -> list[Translation]:
    """The contract rendered for each successor of its archived engine (none otherwise)."""
    from .adapters import render  # the adapters import the rules, which import this module

    archived = ARCHIVED.get(doc.target.engine)
    found: list[Translation] = []
    for engine in archived.successors if archived else ():
        try:
            out = render(doc, engine)
        except ContractError as exc:
            refused = tuple(f"{e.path}: {e.message}" for e in exc.errors)
            found.append(Translation(engine, ENGINE_NAMES[engine], None, refused=refused))
            continue
        lossy = tuple(n.removeprefix("lossy: ") for n in out.notes if n.startswith("lossy:"))
        found.append(Translation(engine, ENGINE_NAMES[engine], out.shell, lossy=lossy))
    return found
