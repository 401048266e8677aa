"""A managed server's command naming the shipped model gets this worker's GGUF path."""

from __future__ import annotations

from pathlib import Path

import pytest

from worker.engines import builtin


def test_the_builtin_model_word_becomes_the_local_gguf_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtin, "builtin_gguf", lambda: Path("/cache/gemma-3-270m-q4_k_m.gguf"))
    argv = ["llama-server", "-m", "builtin:gemma-3-270m", "--port", "18080"]
    assert builtin.resolve_builtin(argv) == [
        "llama-server", "-m", "/cache/gemma-3-270m-q4_k_m.gguf", "--port", "18080",
    ]  # fmt: skip


def test_a_command_without_it_is_left_alone_and_nothing_is_assembled(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> Path:
        raise AssertionError("the GGUF is assembled only when a command names it")

    monkeypatch.setattr(builtin, "builtin_gguf", fail)
    argv = ["vllm", "serve", "google/gemma-3-270m"]
    assert builtin.resolve_builtin(argv) == argv
