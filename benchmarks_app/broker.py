"""The Celery app that publishes run messages: the control plane's own (specpact.celery),
or, when the configured broker URL differs from the one it was built with (tests point
CELERY_BROKER_URL at a private Redis with override_settings), one built for that URL.

Only `send_task` by name is used: the control plane never imports the worker's task
module (it would pull the harness and torch)."""

from __future__ import annotations

import threading

from celery import Celery
from django.conf import settings

from benchmarks_app.conf import visibility_timeout_s

_lock = threading.Lock()
_apps: dict[str, Celery] = {}


def publisher_app() -> Celery:
    from specpact.celery import app as control_plane_app

    url = settings.CELERY_BROKER_URL
    if control_plane_app.conf.broker_url == url:
        return control_plane_app
    with _lock:
        if url not in _apps:
            app = Celery("specpact-publisher", set_as_current=False)
            app.conf.update(
                broker_url=url,
                broker_transport_options={"visibility_timeout": visibility_timeout_s()},
                task_serializer="json",
                broker_connection_retry_on_startup=True,
            )
            _apps[url] = app
        return _apps[url]
