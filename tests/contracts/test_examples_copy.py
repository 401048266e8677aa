"""The repository's copy of the example contracts (used by the demo on a plain clone)
is byte-for-byte the design's copy."""

from __future__ import annotations

import pytest

from contracts_app.examples import repository_examples, shared_examples


def test_repository_examples_match_the_shared_ones() -> None:
    shared = shared_examples()
    if not shared.is_dir():
        pytest.fail(f"the shared examples are expected beside the repository at {shared}")
    ours = {p.name: p.read_bytes() for p in repository_examples().glob("*.yaml")}
    theirs = {p.name: p.read_bytes() for p in shared.glob("*.yaml")}
    assert ours == theirs
