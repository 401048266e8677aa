"""The worker's saved identity: after the first registration, a restart reuses the same
worker id and token instead of enrolling a new machine each time."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


def state_dir(given: str | None = None) -> Path:
    path = Path(given or os.environ.get("SPECPACT_WORKER_HOME") or Path.home() / ".specpact-worker")
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


@dataclass(frozen=True)
class Credentials:
    url: str
    worker_id: int
    token: str
    name: str
    queues: list[str]
    broker_url: str
    heartbeat_interval_s: int
    visibility_timeout_s: int
    broker_transport_options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_registration(cls, url: str, body: dict[str, Any]) -> Credentials:
        return cls(
            url=url,
            worker_id=int(body["worker"]["id"]),
            token=body["token"],
            name=body["worker"]["name"],
            queues=list(body["queues"]),
            broker_url=body["broker_url"],
            heartbeat_interval_s=int(body["heartbeat_interval_s"]),
            visibility_timeout_s=int(body["visibility_timeout_s"]),
            broker_transport_options=dict(body.get("broker_transport_options") or {}),
        )

    def save(self, path: Path) -> None:
        # Written whole then renamed, readable by this user only: it holds the token.
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump(asdict(self), fh, indent=2)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Credentials | None:
        try:
            return cls(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None


def credentials_path(home: Path) -> Path:
    return home / "credentials.json"
