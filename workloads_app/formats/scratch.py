"""An upload's working set on disk: a private SQLite file, so that importing a workload
holds a constant amount of memory whatever its number of lines.

Everything that needs to see all the records at once lives here rather than in Python
lists: the records as the importer made them (`items`; an OpenAI log fills in an earlier
request's reference when a later one continues it, a Mooncake trace is replayed in
timestamp order), the validated records in canonical form (`records`: ids unique,
conversations' turns complete, checked by queries), the problems and warnings (reported
first 200, counted all), and the figures the statistics are computed from (`vals`,
`texts`, `prefixes`, `systems`: sorted and counted by SQLite, exactly). SQLite's page
cache is bounded (`CACHE_KIB`); the file is deleted when the upload is done.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
import weakref
from collections.abc import Iterator
from types import TracebackType
from typing import Any

CACHE_KIB = 4096
# Rows written at a time (executemany): what is pending is all this module holds.
BATCH = 500
# The problems an error report shows (and the warnings a version keeps); all are counted.
SHOWN = 200

_SCHEMA = """
CREATE TABLE items (pos INTEGER PRIMARY KEY, number INTEGER, sort REAL, data TEXT,
                    conv TEXT, turn INTEGER);
CREATE TABLE threads (history BLOB PRIMARY KEY, pos INTEGER) WITHOUT ROWID;
CREATE TABLE continued (pos INTEGER PRIMARY KEY);
CREATE TABLE records (pos INTEGER PRIMARY KEY, number INTEGER, rid TEXT, conv TEXT,
                      turn INTEGER, canonical TEXT);
CREATE TABLE problems (number INTEGER, path TEXT, message TEXT, warning INTEGER, kind TEXT);
CREATE TABLE vals (kind TEXT, v REAL);
CREATE TABLE texts (t TEXT);
CREATE TABLE prefixes (k BLOB, n INTEGER);
CREATE TABLE systems (content TEXT);
"""


class Scratch:
    """Open it with `with Scratch() as scratch:`; the file goes when the block ends."""

    def __init__(self) -> None:
        fd, self.path = tempfile.mkstemp(prefix="specpact-upload-", suffix=".sqlite3")
        os.close(fd)
        # isolation_level=None: this module says when a transaction begins (one, for speed).
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        for pragma in (
            "journal_mode=OFF",  # a scratch file: nothing to recover after a crash
            "synchronous=OFF",
            f"cache_size=-{CACHE_KIB}",
            "temp_store=FILE",  # sorts spill to disk, not to memory
        ):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.executescript(_SCHEMA)
        self.db.execute("BEGIN")
        self._pending: dict[str, list[tuple[Any, ...]]] = {}
        # Closed by `with`, or when the last reference goes (an import a test keeps).
        self._cleanup = weakref.finalize(self, _remove, self.db, self.path)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._cleanup()

    # The importer's items -------------------------------------------------------------

    def insert(self, sql: str, row: tuple[Any, ...]) -> None:
        """Write `row` with `sql` (an INSERT), in a batch: any read (`execute`) writes
        what is pending first."""
        pending = self._pending.setdefault(sql, [])
        pending.append(row)
        if len(pending) >= BATCH:
            self.db.executemany(sql, pending)
            pending.clear()

    def flush(self) -> None:
        for sql, rows in self._pending.items():
            if rows:
                self.db.executemany(sql, rows)
                rows.clear()

    def add_item(self, number: int, data: dict[str, Any], sort: float | None = None) -> int:
        self.flush()
        cursor = self.db.execute(
            "INSERT INTO items (number, sort, data) VALUES (?, ?, ?)",
            (number, sort, json.dumps(data, ensure_ascii=False)),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def items(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(number, data) in replay order: by `sort` where given, else as added."""
        rows = self.execute("SELECT number, data FROM items ORDER BY sort, pos")
        for number, data in rows:
            yield number, json.loads(data)

    def item_count(self) -> int:
        return int(self.execute("SELECT COUNT(*) FROM items").fetchone()[0])

    # Problems and warnings ------------------------------------------------------------

    def problem(
        self, number: int, path: str, message: str, *, warning: bool = False, kind: str = "import"
    ) -> None:
        """`kind` keeps apart the checks that run one after the other (import, context)."""
        self.insert(
            "INSERT INTO problems VALUES (?, ?, ?, ?, ?)", (number, path, message, int(warning), kind)
        )

    def problems(
        self, *, warning: bool = False, kind: str = "import"
    ) -> tuple[list[tuple[int, str, str]], int]:
        """(the first SHOWN problems by number, distinct; how many numbers have one)."""
        which = (int(warning), kind)
        shown = self.execute(
            "SELECT DISTINCT number, path, message FROM problems WHERE warning = ? AND kind = ? "
            "ORDER BY number, path, message LIMIT ?",
            (*which, SHOWN),
        ).fetchall()
        (count,) = self.execute(
            "SELECT COUNT(DISTINCT number) FROM problems WHERE warning = ? AND kind = ?", which
        ).fetchone()
        return [(int(n), str(p), str(m)) for n, p, m in shown], int(count)

    # Validated records ----------------------------------------------------------------

    def add_record(self, number: int, rid: str, conv: str | None, turn: int | None, canonical: str) -> None:
        self.insert(
            "INSERT INTO records (number, rid, conv, turn, canonical) VALUES (?, ?, ?, ?, ?)",
            (number, rid, conv, turn, canonical),
        )

    def canonical_lines(self, *, by_conversation: bool = False) -> Iterator[tuple[int, str]]:
        """(number, canonical line) in the workload's order, or grouped by conversation
        (turn order; a record outside any conversation is a group of its own)."""
        if by_conversation:
            yield from self.execute(
                "SELECT number, canonical FROM records ORDER BY conv IS NULL, conv, turn, pos"
            )
        else:
            yield from self.execute("SELECT number, canonical FROM records ORDER BY pos")

    def record_count(self) -> int:
        return int(self.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        self.flush()
        return self.db.execute(sql, params)


def _remove(db: sqlite3.Connection, path: str) -> None:
    db.close()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
