"""The worker-side Celery app. It shares only the broker with the control plane.

Settings for long GPU jobs:
- `task_acks_late` + `task_reject_on_worker_lost`: a message is acknowledged when the run
  is over, so a task process killed mid-run (OOM, kill -9) puts it back on the queue;
- `worker_prefetch_multiplier = 1` and concurrency 1: a GPU box holds one run at a time
  and reserves no second message that another worker could be running;
- time limits per message (soft, then hard) from the run specification, enforced by the
  prefork pool (the solo pool cannot kill a stuck task);
- `visibility_timeout` longer than the longest run (from registration), or Redis would
  hand a long run to a second worker while the first is still on it.
Retries happen only for named transient errors while uploading a result.

`celery -A worker.agent.celery_app worker -Q worker.7,pool.gpu-h100 -c 1` also works,
with SPECPACT_WORKER_HOME pointing at a registered agent's folder.
"""

from __future__ import annotations

import os

from celery import Celery

from worker.agent.credentials import Credentials, credentials_path, state_dir

# No fixups: Celery's Django fixup would set Django up whenever DJANGO_SETTINGS_MODULE
# happens to be set on the machine; the worker has no business with Django.
app = Celery("specpact-worker", set_as_current=False, fixups=[])


def configure(credentials: Credentials, *, broker_url: str | None = None) -> Celery:
    url = broker_url or credentials.broker_url
    app.conf.update(
        broker_url=url,
        # Celery prefers a CELERY_BROKER_URL environment variable to broker_url; the
        # explicit read/write URLs win over it, so the registration (or --broker) decides.
        broker_read_url=url,
        broker_write_url=url,
        broker_transport_options={
            **credentials.broker_transport_options,
            "visibility_timeout": credentials.visibility_timeout_s,
        },
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        worker_concurrency=1,
        task_serializer="json",
        accept_content=["json"],
        result_backend=None,
        task_ignore_result=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


# `celery -A worker.agent.celery_app` loads this module with no CLI around it: take the
# saved registration from the agent's folder.
if os.environ.get("SPECPACT_WORKER_HOME") and not app.conf.get("broker_read_url"):
    _saved = Credentials.load(credentials_path(state_dir()))
    if _saved is not None:
        configure(_saved, broker_url=os.environ.get("SPECPACT_BROKER_URL"))

import worker.agent.task  # noqa: E402,F401  (registers the task on the app)
