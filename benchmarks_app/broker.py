"""The Celery app that publishes run messages, one per broker URL.

Not the control plane's own app (specpact.celery): that one reads its settings from
Django lazily but builds its connection pool once, so a changed CELERY_BROKER_URL (tests
point it at a private Redis with override_settings) would publish to the old broker.

Only `send_task` by name is used: the control plane never imports the worker's task
module (it would pull the harness and torch)."""

from __future__ import annotations

import threading

from celery import Celery
from django.conf import settings

_lock = threading.Lock()
_apps: dict[str, Celery] = {}


def publisher_app() -> Celery:
    url = settings.CELERY_BROKER_URL
    with _lock:
        if url not in _apps:
            app = Celery("specpact-publisher", set_as_current=False)
            app.conf.update(
                broker_url=url,
                # The filesystem broker's folders, or Redis's visibility timeout.
                broker_transport_options=dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}),
                task_serializer="json",
                broker_connection_retry_on_startup=True,
            )
            _apps[url] = app
        return _apps[url]
