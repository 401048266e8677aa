"""The control plane's Celery app (outbox relay, sweeps). Workers on GPU boxes run their
own Celery app from `worker/`, which shares only the broker, never the database."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")

app = Celery("specpact")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect(weak=False)
def _check_tracing(**_: Any) -> None:
    """A bad tracing setting stops the worker at start, in its main process. SystemExit,
    since Celery logs and carries on past a receiver's Exception (Signal.send)."""
    from observability_app.tracing import configuration_problems

    problems = configuration_problems()
    if problems:
        raise SystemExit("tracing: " + "; ".join(problems))


@worker_process_init.connect(weak=False)
def _start_tracing(**_: Any) -> None:
    """Tracing (off by default) starts in the process that runs the tasks, as
    opentelemetry-instrumentation-celery's docs ask: a prefork child (the solo pool sends
    the signal too), since the batch exporter's thread does not survive a fork."""
    from observability_app.tracing import start_worker_tracing

    start_worker_tracing()
