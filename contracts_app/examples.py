"""Where the example contracts live. The repository carries a copy (`contracts/examples/`)
so that the demo runs from a plain clone; the design's own copy (`../shared/...`) is the
reference, and a test keeps the two identical wherever both exist."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def examples_dir() -> Path:
    for candidate in (repository_examples(), shared_examples()):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the example contracts (contracts/examples/) are missing")


def repository_examples() -> Path:
    return Path(settings.BASE_DIR) / "contracts" / "examples"


def shared_examples() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "contracts" / "examples"
