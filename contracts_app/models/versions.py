from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class ContractVersionQuerySet(models.QuerySet["ContractVersion"]):
    def for_route(self, slug: str) -> ContractVersionQuerySet:
        return self.filter(route__slug=slug)


class ContractVersion(models.Model):
    """An immutable, validated contract document. Its identity is `digest`, the SHA-256
    of the canonical JSON; `number` is the route's monotonic version counter."""

    class Source(models.TextChoices):
        YAML = "yaml", "YAML upload"
        JSON = "json", "JSON upload"
        GENERATED = "generated", "generated (rollback target)"

    route = models.ForeignKey("contracts_app.Route", on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    digest = models.CharField(max_length=71)
    document = models.JSONField()
    source_format = models.CharField(max_length=16, choices=Source.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ContractVersionQuerySet.as_manager()

    class Meta:
        ordering = ["route", "number"]
        constraints = [
            models.UniqueConstraint(fields=["route", "number"], name="contract_version_number_unique"),
            models.UniqueConstraint(fields=["route", "digest"], name="contract_version_digest_unique"),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="contract_version_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.route_id}:v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Versions are immutable: a change is a new version. The database refuses it too
        # (trigger in migration 0002) for writes that bypass the model.
        if self.pk is not None and not self._state.adding:
            raise ValueError("contract versions are immutable; upload a new version instead")
        super().save(*args, **kwargs)

    @property
    def speculation_method(self) -> str:
        return str(self.document.get("speculation", {}).get("method", "none"))
