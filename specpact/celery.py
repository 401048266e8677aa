"""The control plane's Celery app (outbox relay, sweeps). Workers on GPU boxes run their
own Celery app from `worker/`, which shares only the broker, never the database."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")

app = Celery("specpact")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
