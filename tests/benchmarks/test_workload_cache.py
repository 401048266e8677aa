"""The worker's workload cache (worker/agent/workloads.py): by digest, checked on every
use, a damaged entry fetched again, and bytes that don't match refused and not kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.run_specs import arm, run_spec
from worker.agent.workloads import WorkloadRefused, workload_file
from worker.spec import RunSpec
from worker.workloads.records import digest_of

CONTENT = b'{"prompt":"a"}\n{"prompt":"b"}\n'


def _spec(digest: str) -> RunSpec:
    return RunSpec.model_validate(
        run_spec(
            baseline=arm(method="none"),
            candidate=arm(method="none"),
            workload={"lane": "chat", "dataset": f"workload:w@{digest}", "name": "w", "digest": digest},
            levels=[{"concurrency": 1}],
            requests_per_level=1,
            max_tokens=4,
        )
    )


class Sender:
    """What the control plane sends, in chunks, and how often it was asked."""

    def __init__(self, data: bytes) -> None:
        self.data, self.calls = data, 0

    @contextmanager
    def __call__(self) -> Iterator[Iterator[bytes]]:
        self.calls += 1
        yield iter([self.data[:5], self.data[5:]])


def test_a_workload_is_downloaded_once_and_reused_by_digest(tmp_path: Path) -> None:
    spec, sender = _spec(digest_of(CONTENT)), Sender(CONTENT)
    path = workload_file(spec, home=tmp_path, download=sender)
    assert path == tmp_path / "workloads" / digest_of(CONTENT).removeprefix("sha256:") / "w.jsonl"
    assert path.read_bytes() == CONTENT
    assert workload_file(spec, home=tmp_path, download=sender) == path and sender.calls == 1


def test_a_damaged_cache_entry_is_fetched_again(tmp_path: Path) -> None:
    spec, sender = _spec(digest_of(CONTENT)), Sender(CONTENT)
    path = workload_file(spec, home=tmp_path, download=sender)
    path.write_bytes(b'{"prompt":"edited"}\n')
    assert workload_file(spec, home=tmp_path, download=sender).read_bytes() == CONTENT and sender.calls == 2


def test_bytes_that_dont_hash_to_the_digest_are_refused_and_not_kept(tmp_path: Path) -> None:
    spec = _spec(digest_of(CONTENT))
    with pytest.raises(WorkloadRefused, match=r"hash to sha256:[0-9a-f]{64}, not to sha256:") as caught:
        workload_file(spec, home=tmp_path, download=Sender(b'{"prompt":"other"}\n'))
    assert "refusing to benchmark on them" in caught.value.reason
    assert not any(p.is_file() for p in (tmp_path / "workloads").rglob("*"))


def test_a_spec_naming_no_digest_is_refused(tmp_path: Path) -> None:
    full = _spec(digest_of(CONTENT))
    spec: Any = full.model_copy(update={"workload": full.workload.model_copy(update={"digest": None})})
    with pytest.raises(WorkloadRefused, match="names no registered workload digest"):
        workload_file(spec, home=tmp_path, download=Sender(CONTENT))
