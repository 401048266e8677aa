"""A registered workload on the worker: downloaded over REST with the worker's own token,
cached by digest, and checked against the digest the run names before it is used.

The cache is `<home>/workloads/<hex digest>/<name>.jsonl`: content-addressed, so two
runs on the same workload download it once, and an entry whose bytes no longer hash to
its digest (a disk fault, a hand edit) is thrown away and fetched again. Bytes from the
control plane that don't hash to the run's digest are refused: the run fails with that
reason and nothing is benchmarked on them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from worker.spec import RunSpec
from worker.workloads.records import DIGEST_PREFIX

Download = Callable[[], AbstractContextManager[Iterator[bytes]]]


class WorkloadRefused(Exception):
    """The workload can't be used for this run; `reason` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return DIGEST_PREFIX + h.hexdigest()


def workload_file(spec: RunSpec, *, home: Path, download: Download) -> Path:
    """The run's workload as a local SpecPact JSONL file, checked against its digest."""
    digest, name = spec.workload.digest, spec.workload.name
    if digest is None or name is None:
        raise WorkloadRefused(f"dataset {spec.workload.dataset!r} names no registered workload digest")
    folder = home / "workloads" / digest.removeprefix(DIGEST_PREFIX)
    path = folder / f"{name}.jsonl"
    if path.is_file():
        if _file_digest(path) == digest:
            return path
        path.unlink()  # a damaged cache entry: fetch it again
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.{os.getpid()}.part"
    h = hashlib.sha256()
    size = 0
    try:
        with download() as chunks, tmp.open("wb") as out:
            for chunk in chunks:
                h.update(chunk)
                size += len(chunk)
                out.write(chunk)
        got = DIGEST_PREFIX + h.hexdigest()
        if got != digest:
            raise WorkloadRefused(
                f"workload {name}: the {size} bytes the control plane sent hash to {got}, not to "
                f"{digest} that the run names; refusing to benchmark on them"
            )
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
