"""The request context across Celery: a task enqueued while handling a request carries
that request's id in its message headers, and runs inside it, so the audit events a task
records name the request that caused them. A task enqueued outside any request (beat, a
command) runs under its own id, `task:<name>:<task id>`.

Connected by `kernel.apps.KernelConfig.ready`; the worker side needs no configuration."""

from __future__ import annotations

from contextvars import Token
from typing import Any

from celery.signals import before_task_publish, task_postrun, task_prerun

from kernel.context import _request_id, current_request_id, safe_request_id

HEADER = "specpact_request_id"
_tokens: dict[str, Token[str]] = {}


@before_task_publish.connect(dispatch_uid="kernel.request_id_to_headers")
def _carry_request_id(sender: Any = None, headers: dict[str, Any] | None = None, **_: Any) -> None:
    request_id = current_request_id()
    if request_id and headers is not None:
        headers.setdefault(HEADER, request_id)


@task_prerun.connect(dispatch_uid="kernel.request_id_from_headers")
def _enter(task_id: str = "", task: Any = None, **_: Any) -> None:
    request = getattr(task, "request", None)
    # A worker merges a message's own headers into the task's request; `apply()` keeps them
    # under `headers`.
    given = getattr(request, HEADER, None) or (getattr(request, "headers", None) or {}).get(HEADER)
    name = getattr(task, "name", "task")
    request_id = safe_request_id(given) if given else f"task:{name}:{task_id}"[:128]
    _tokens[task_id] = _request_id.set(request_id)


@task_postrun.connect(dispatch_uid="kernel.request_id_reset")
def _leave(task_id: str = "", **_: Any) -> None:
    token = _tokens.pop(task_id, None)
    if token is not None:
        try:
            _request_id.reset(token)
        except ValueError:  # set in another context (a pool thread): forget it there
            _request_id.set("")
