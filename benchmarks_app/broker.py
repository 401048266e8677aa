"""The Celery app that publishes run messages, one per broker URL.

Not the control plane's own app (specpact.celery): that one reads its settings from
Django lazily but builds its connection pool once, so a changed CELERY_BROKER_URL (tests
point it at a private Redis with override_settings) would publish to the old broker.

Only `send_task` by name is used: the control plane never imports the worker's task
module (it would pull the harness and torch)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from celery import Celery
from django.conf import settings

_lock = threading.Lock()
_apps: dict[str, Celery] = {}


def transport_options() -> dict[str, Any]:
    """The filesystem broker's folders (created here: kombu does not), or Redis's
    visibility timeout. Workers get the same at registration."""
    options = dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {})
    if str(settings.CELERY_BROKER_URL).startswith("filesystem://"):
        for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
            if options.get(key):
                Path(options[key]).mkdir(parents=True, exist_ok=True)
    return options


def worker_broker_url() -> str:
    return str(settings.WORKER_BROKER_URL or settings.CELERY_BROKER_URL)


def worker_transport_options() -> dict[str, Any]:
    """Kombu transport options for workers: the control plane's own when they share its
    broker URL (the embedded filesystem broker needs its folders), else the timeout (and
    a Sentinel broker's master group)."""
    if worker_broker_url() == settings.CELERY_BROKER_URL:
        return transport_options()
    options: dict[str, Any] = {"visibility_timeout": visibility_timeout_s()}
    if worker_broker_url().startswith("sentinel://"):  # kombu's sentinel transport needs it
        options["master_name"] = settings.BROKER_SENTINEL_MASTER
    return options


def visibility_timeout_s() -> int:
    """What the broker redelivers after: the transport's own option where it has one."""
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}
    return int(options.get("visibility_timeout", settings.CELERY_VISIBILITY_TIMEOUT_S))


def publisher_app() -> Celery:
    url = settings.CELERY_BROKER_URL
    with _lock:
        if url not in _apps:
            app = Celery("specpact-publisher", set_as_current=False)
            app.conf.update(
                broker_url=url,
                # Celery prefers a CELERY_BROKER_URL environment variable to broker_url;
                # the explicit read/write URLs win over it, so the settings decide.
                broker_read_url=url,
                broker_write_url=url,
                broker_transport_options=transport_options(),
                task_serializer="json",
                broker_connection_retry_on_startup=True,
            )
            _apps[url] = app
        return _apps[url]
