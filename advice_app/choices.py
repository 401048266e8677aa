"""Named states of an advice run, and which are final."""

from __future__ import annotations

from django.db import models


class AdviceState(models.TextChoices):
    QUEUED = "queued", "queued"
    MEASURING = "measuring", "measuring"
    FINISHED = "finished", "finished"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


# An advice run in one of these never changes state again.
FINAL_STATES = frozenset({AdviceState.FINISHED, AdviceState.FAILED, AdviceState.CANCELLED})
