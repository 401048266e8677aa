"""Giving a big request's memory back to the system once it is answered.

A result upload parses tens of MiB of JSON into Python objects. Freed, their pages stay
with glibc's malloc, which keeps them for reuse: a sync web worker's RSS stayed ~155 MiB
higher after 15 MiB uploads (issue 26). `release_memory()` asks glibc to return its free
pages (`malloc_trim(0)`, glibc's malloc.h; absent on other C libraries, where it does
nothing). Measured on a parsed 14 MiB result (RSS 184 MiB before, 246 parsed): freed, RSS
stayed at 217 MiB; `malloc_trim` brought it to 188 MiB in 8-14 ms. `gc.collect()` was
measured too and left out: a parsed JSON value holds no cycles (it is freed by reference
counting as soon as it is dropped), and a full collection of a Django worker's heap took
0.37-0.68 s on the loaded machine for no RSS returned. benchmarks/result_upload.py measures
the effect on a gunicorn worker.

With `database=True` this thread's database connection is closed as well (outside a
transaction; the next query opens a new one): libpq keeps its buffers at the size of the
largest query sent for the connection's life (CONN_MAX_AGE, 600 s), ~15 MiB after a 13 MiB
result; closing it took the process back to 3 MiB above where it started (measured).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache
from typing import Any

from django.db import connection


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release_memory(*, database: bool = False) -> None:
    if database and not connection.in_atomic_block:
        connection.close()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
