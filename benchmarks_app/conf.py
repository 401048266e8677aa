"""The worker protocol's settings, each read from the environment through the project's
typed readers and overridable in Django settings (tests use override_settings).

| setting | default | meaning |
| --- | --- | --- |
| WORKER_OFFLINE_AFTER_S | 60 | a worker silent this long is offline; its running run is lost |
| WORKER_HEARTBEAT_S | 15 | how often workers are told to heartbeat |
| WORKER_BROKER_URL | CELERY_BROKER_URL | the broker URL handed to workers at registration |
| RUN_MAX_ATTEMPTS | 2 | attempts per run: a lost run is requeued once, then failed |
| RUN_DEFAULT_TIME_LIMIT_S | 3600 | hard time limit of a run when the request gives none |
| RUN_MAX_TIME_LIMIT_S | 4 h | must stay below the broker's visibility timeout |
| OUTBOX_RELAY_INTERVAL_S | 5 | how often beat runs the relay |
| OUTBOX_RETRY_MAX_S | 300 | the longest wait between tries to publish one message |
| RUN_SWEEP_INTERVAL_S | 15 | how often beat runs the lost-run sweep |
| RUN_RELEASE_QUEUE | (auto) | release runs of the in-process engine (default `engine.transformers`) |
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from specpact.env import env_int, env_str

_DEFAULTS: dict[str, Any] = {
    "WORKER_OFFLINE_AFTER_S": env_int("WORKER_OFFLINE_AFTER_S", 60),
    "WORKER_HEARTBEAT_S": env_int("WORKER_HEARTBEAT_S", 15),
    "WORKER_BROKER_URL": env_str("WORKER_BROKER_URL"),
    "RUN_MAX_ATTEMPTS": env_int("RUN_MAX_ATTEMPTS", 2),
    "RUN_DEFAULT_TIME_LIMIT_S": env_int("RUN_DEFAULT_TIME_LIMIT_S", 3600),
    "RUN_MAX_TIME_LIMIT_S": env_int("RUN_MAX_TIME_LIMIT_S", 4 * 3600),
    "OUTBOX_RELAY_INTERVAL_S": env_int("OUTBOX_RELAY_INTERVAL_S", 5),
    "OUTBOX_RETRY_MAX_S": env_int("OUTBOX_RETRY_MAX_S", 300),
    "RUN_SWEEP_INTERVAL_S": env_int("RUN_SWEEP_INTERVAL_S", 15),
    "RUN_RELEASE_QUEUE": env_str("RUN_RELEASE_QUEUE", ""),
}


def setting(name: str) -> Any:
    return getattr(settings, name, _DEFAULTS[name])


def worker_broker_url() -> str:
    return str(setting("WORKER_BROKER_URL") or settings.CELERY_BROKER_URL)


def worker_transport_options() -> dict[str, Any]:
    """Kombu transport options for workers: the control plane's own when they share its
    broker URL (the embedded filesystem broker needs its folders), else the timeout."""
    if worker_broker_url() == settings.CELERY_BROKER_URL:
        from benchmarks_app.broker import transport_options

        return transport_options()
    return {"visibility_timeout": visibility_timeout_s()}


def visibility_timeout_s() -> int:
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}
    return int(options.get("visibility_timeout", 6 * 3600))
