"""Engine adapters: a contract → the engine's launch command and config (`render`), and an
engine command line → a contract with the fields it cannot say listed (`import_command`).
Rendering is pure: no network, no engine installed."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from .. import rules
from ..engines import ENGINES
from ..errors import ContractError, FieldError
from ..schema import ContractDocument
from . import llamacpp, sglang, tgi, transformers, vllm
from .base import ImportResult, RenderedConfig

__all__ = ["ENGINES", "ImportResult", "RenderedConfig", "import_command", "render"]

_ADAPTERS: dict[str, ModuleType] = {
    "vllm": vllm,
    "tgi": tgi,
    "sglang": sglang,
    "llamacpp": llamacpp,
    "transformers": transformers,
}


def _adapter(engine: str) -> ModuleType:
    try:
        return _ADAPTERS[engine]
    except KeyError:
        raise ContractError(
            "Unknown engine.",
            [FieldError("engine", f"unknown engine {engine!r}; one of {', '.join(ENGINES)}")],
        ) from None


def render(doc: ContractDocument, engine: str | None = None) -> RenderedConfig:
    """Render for the contract's engine, or for another one when the contract could run
    there: the engine rules of that engine are checked first (a TGI render of an EAGLE
    route is refused, not silently degraded)."""
    name = engine or doc.target.engine
    adapter = _adapter(name)
    if name != doc.target.engine:
        retargeted = doc.model_copy(update={"target": doc.target.model_copy(update={"engine": name})})
        problems = rules.errors(retargeted)
        if problems:
            raise ContractError(f"The contract cannot be rendered for {name}.", problems)
        doc = retargeted
    result: RenderedConfig = adapter.render(doc)
    return result


def import_command(engine: str, argv: list[str]) -> ImportResult:
    importer: Callable[[list[str]], ImportResult] = _adapter(engine).import_argv
    return importer(list(argv))
