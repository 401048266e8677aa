"""Engine adapters: a contract → the engine's launch command and config (`render`), and an
engine command line → a contract with the fields it cannot say listed (`import_command`).
Rendering is pure: no network, no engine installed."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from ..engines import ENGINE_NAMES, ENGINES
from ..errors import ContractError, FieldError
from ..schema import ContractDocument
from . import llamacpp, sglang, tgi, transformers, trtllm, vllm
from .base import ImportResult, RenderedConfig
from .params_render import with_env
from .translate import translate

__all__ = ["ENGINES", "ImportResult", "RenderedConfig", "import_command", "render"]

_ADAPTERS: dict[str, ModuleType] = {
    "vllm": vllm,
    "tgi": tgi,
    "sglang": sglang,
    "llamacpp": llamacpp,
    "transformers": transformers,
    "trtllm": trtllm,
}
# Engines whose command names a file that holds settings (TensorRT-LLM's YAML config).
_READS_FILES = frozenset({"trtllm"})


def _adapter(engine: str) -> ModuleType:
    try:
        return _ADAPTERS[engine]
    except KeyError:
        raise ContractError(
            "Unknown engine.",
            [FieldError("engine", f"unknown engine {engine!r}; one of {', '.join(ENGINES)}")],
        ) from None


def render(doc: ContractDocument, engine: str | None = None) -> RenderedConfig:
    """Render for the contract's engine, or translated for another one (`translate.py`):
    that engine's rules (its newest release) are checked; a tuning setting it cannot hold is
    dropped with a note saying so; a method or asset it cannot run refuses the render (a TGI
    render of an EAGLE route is refused, not silently degraded)."""
    name = engine or doc.target.engine
    adapter = _adapter(name)
    notes: list[str] = []
    if name != doc.target.engine:
        doc, notes = translate(doc, name)
    result: RenderedConfig = adapter.render(doc)
    result.notes[:0] = notes
    return with_env(result, doc)


def import_command(
    engine: str,
    argv: list[str] | str,
    engine_version: str | None = None,
    files: dict[str, str] | None = None,
) -> ImportResult:
    """`argv` as words, or the command as pasted (one string: `\\`-continued lines, a
    `docker run …` around it, or for Transformers a `model.generate(...)` call).
    `engine_version` is the release the command runs on, when the caller knows it (a
    command line says it only through an engine image's tag): flags are read as that
    release spells them, and it becomes `target.engine_version`. `files` holds the content
    of files the command names, by that name (TensorRT-LLM's `--config FILE.yaml`)."""
    importer: Callable[..., ImportResult] = _adapter(engine).import_argv
    words = argv if isinstance(argv, str) else list(argv)
    if engine in _READS_FILES:
        return importer(words, engine_version=engine_version, files=dict(files or {}))
    if files:
        raise ContractError(
            "The files cannot be read.",
            [FieldError("files", f"a {ENGINE_NAMES[engine]} command line names no config file to read")],
        )
    return importer(words, engine_version=engine_version)
