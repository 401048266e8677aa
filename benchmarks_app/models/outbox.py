from __future__ import annotations

from django.db import models


class OutboxMessage(models.Model):
    """A task message waiting to be published to the broker. Written in the same
    transaction as the run it dispatches, so a run exists iff its dispatch does; the
    relay publishes it after commit and retries until the broker takes it."""

    run = models.ForeignKey("benchmarks_app.Run", on_delete=models.PROTECT, related_name="outbox")
    attempt = models.PositiveIntegerField()
    task_name = models.CharField(max_length=200)
    queue = models.CharField(max_length=100)
    # Celery task id: deterministic, so a republish is recognisable downstream.
    task_id = models.CharField(max_length=100, unique=True)
    payload = models.JSONField()
    soft_time_limit_s = models.PositiveIntegerField()
    time_limit_s = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    # How many times the broker accepted it (1 when all is well; the tests check it).
    publish_count = models.PositiveIntegerField(default=0)
    # Set instead of publishing when the run no longer wants this attempt (cancelled).
    discarded_at = models.DateTimeField(null=True, blank=True)
    tries = models.PositiveIntegerField(default=0)
    next_try_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["next_try_at"],
                name="outbox_pending",
                condition=models.Q(published_at__isnull=True, discarded_at__isnull=True),
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["run", "attempt"], name="outbox_one_per_attempt"),
        ]

    def __str__(self) -> str:
        return f"outbox {self.pk}: run {self.run_id} attempt {self.attempt} → {self.queue}"

    @property
    def is_pending(self) -> bool:
        return self.published_at is None and self.discarded_at is None
