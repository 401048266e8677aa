"""Checkpoint heads exported off the database, so deleting checkpoint rows shows.

Each signed checkpoint leaves, after its transaction commits, three copies outside its table:

- one log line on the logger `specpact.audit.heads`, the head as one JSON object (ship
  the log elsewhere and it is a copy an attacker on the database host can't reach);
- one JSON line appended to settings.AUDIT_HEAD_EXPORT_FILE when it names a file (opened
  O_APPEND, fsync'd before the call returns; point it at storage the database's
  superuser can't write: another host's mount, an append-only volume);
- the webhook event `audit.checkpoint_signed` (webhooks_app answers the
  `checkpoint_signed` signal, audit_app/signals.py, with a delivery in the same transaction).

`verify_audit --against FILE` and `audit/verify` (the configured file) hold the database
to the file (audit_app/holding.py `hold_export`).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.dateparse import parse_datetime

from audit_app.holding import Signed

heads_log = logging.getLogger("specpact.audit.heads")

HEAD_FORMAT = "specpact-audit-head/v1"


def head_line(cp: Signed) -> str:
    return json.dumps({"format": HEAD_FORMAT, **cp.as_dict()}, sort_keys=True, separators=(",", ":"))


def head_export(cp: Signed) -> None:
    """The log line, then the file's line (when configured). Runs after commit: a head
    that rolled back is never exported, so the file never names a row that never was."""
    line = head_line(cp)
    heads_log.info(line)
    path = settings.AUDIT_HEAD_EXPORT_FILE
    if not path:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        os.write(fd, (line + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def heads_read(path: str | Path) -> list[Signed]:
    """The heads of an export file, in order; ValueError naming the line that is wrong. A
    file that does not exist holds no heads (no checkpoint was exported to it yet)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    heads = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            heads.append(_head(json.loads(raw)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path} line {n}: {exc}") from None
    return heads


def _head(entry: Any) -> Signed:
    if not isinstance(entry, dict) or entry.get("format") != HEAD_FORMAT:
        raise ValueError(f"not a {HEAD_FORMAT} line")
    signed_at = parse_datetime(str(entry["signed_at"]))
    if signed_at is None:
        raise ValueError("signed_at is not a time")
    return Signed(
        int(entry["id"]),
        int(entry["event_id"]),
        str(entry["event_hash"]),
        signed_at,
        str(entry["key_id"]),
        str(entry["signature"]),
    )


def configured_heads() -> list[Signed] | None:
    """The configured export's heads; None when no file is configured. ValueError when it
    can't be read."""
    if not settings.AUDIT_HEAD_EXPORT_FILE:
        return None
    return heads_read(settings.AUDIT_HEAD_EXPORT_FILE)
