"""Named states of live_app, in one place."""

from __future__ import annotations

from django.db import models


class ProbeState(models.TextChoices):
    CONFORMS = "conforms", "conforms"
    DRIFTED = "drifted", "drifted"
    UNKNOWN = "unknown", "unknown"


class EndpointEngine(models.TextChoices):
    VLLM = "vllm", "vLLM"
    SGLANG = "sglang", "SGLang"
    TGI = "tgi", "TGI"
    LLAMACPP = "llamacpp", "llama.cpp"


class AlertState(models.TextChoices):
    OPEN = "open", "open"
    # The proposed rollback release exists; an approver decides it on the release page.
    PROPOSED = "proposed", "rollback proposed"
    # A release was already open on the route: the alert stands, nothing was proposed.
    NOT_PROPOSED = "not_proposed", "rollback not proposed"
