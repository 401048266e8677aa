"""Prompt workloads written for a test."""

from __future__ import annotations

import json
from pathlib import Path


def write_prompts(path: Path, n: int, tag: str = "p") -> Path:
    """A JSONL workload of ``n`` distinct prompts."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(
                json.dumps({"id": f"{tag}{i}", "prompt": f"{tag} prompt {i}: tell me about item {i}"}) + "\n"
            )
    return path
