"""Named states of live_app, in one place."""

from __future__ import annotations

from django.db import models

from contracts_app.document.engines import ENGINE_NAMES, SERVER_ENGINES


class ProbeState(models.TextChoices):
    CONFORMS = "conforms", "conforms"
    DRIFTED = "drifted", "drifted"
    UNKNOWN = "unknown", "unknown"


class ProbeRequestState(models.TextChoices):
    """A requested probe's progress (not its finding: that is the probe's ProbeState)."""

    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    # It could not run: the endpoint went away, or the worker gave up on it (the reason).
    FAILED = "failed", "failed"


# An endpoint is a running server: one of the format's server engines, named as the format names them.
# (django-stubs types only the class form of TextChoices.)
EndpointEngine = models.TextChoices(  # type: ignore[call-overload]
    "EndpointEngine", [(engine.upper(), (engine, ENGINE_NAMES[engine])) for engine in SERVER_ENGINES]
)


class AlertState(models.TextChoices):
    OPEN = "open", "open"
    # The proposed rollback release exists; an approver decides it on the release page.
    PROPOSED = "proposed", "rollback proposed"
    # A release was already open on the route: the alert stands, nothing was proposed.
    NOT_PROPOSED = "not_proposed", "rollback not proposed"


class SecretKind(models.TextChoices):
    """Where a bound secret lives on the reader (worker/secrets.py reads both)."""

    ENV = "env", "environment variable"
    FILE = "file", "file"
