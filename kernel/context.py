"""The request context: which request (or task, or command) the work in progress was
caused by, so the audit trail can name it without every function passing it along.

Set once where work starts: `RequestIdMiddleware` for an HTTP request, the Celery task
hooks (`kernel/celery_context.py`) for a task (the id of the request that enqueued it rides
in the message's headers), `command_context` for a management command. Read by
`audit_record` and the problem responses. `contextvars` keep it per thread and per task,
so concurrent requests never see each other's ids."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_request_id: ContextVar[str] = ContextVar("specpact_request_id", default="")

# What a caller may send as X-Request-ID (or a message header): printable, short, no spaces.
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def safe_request_id(given: object) -> str:
    """`given` when it is an acceptable id, else a new one."""
    return given if isinstance(given, str) and _SAFE_ID.match(given) else uuid.uuid4().hex


def current_request_id() -> str:
    """The id of the request, task or command this work belongs to ("" outside any)."""
    return _request_id.get()


@contextmanager
def request_context(request_id: str) -> Iterator[str]:
    """Run the block as part of `request_id` (restored afterwards, also on errors)."""
    token = _request_id.set(request_id)
    try:
        yield request_id
    finally:
        _request_id.reset(token)


@contextmanager
def command_context(name: str) -> Iterator[str]:
    """A management command's own id (`cmd:<name>:<hex>`), so its audit events group."""
    with request_context(f"cmd:{name}:{uuid.uuid4().hex[:16]}") as request_id:
        yield request_id
