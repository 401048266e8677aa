"""One retry policy for the control plane's redelivered tasks (a probe someone asked for,
a release's conclusion).

What goes away on its own is retried with jittered exponential backoff: the database
restarting or failing over, the broker briefly gone (a retry is published through it).
Anything else is a bug a retry won't fix, so it is not retried. Each task is acknowledged
when done and put back when its process dies mid-way (kill -9, OOM): the task itself must
make a second delivery harmless."""

from __future__ import annotations

from typing import Any

from django.db import InterfaceError
from django.db import OperationalError as DatabaseOperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

TRANSIENT_ERRORS = (DatabaseOperationalError, InterfaceError, BrokerOperationalError)


def redelivered_task_options(*, max_retries: int, retry_backoff_max: int) -> dict[str, Any]:
    """`shared_task` options: acknowledged late, redelivered on worker loss, transient errors
    retried up to `max_retries` times with backoff capped at `retry_backoff_max` seconds."""
    return {
        "acks_late": True,
        "reject_on_worker_lost": True,
        "autoretry_for": TRANSIENT_ERRORS,
        "retry_backoff": 2,
        "retry_backoff_max": retry_backoff_max,
        "retry_jitter": True,
        "max_retries": max_retries,
    }
