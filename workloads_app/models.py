"""A workload version is immutable and named by `name` + `digest` (sha256 of its canonical
form, worker/workloads/records.py). Its content lives in its own row so that listing
never loads it and deleting it (the only change a workload allows) removes the prompts
while the version row, its numbers and who used it stay for the record.

Why in the database rather than a storage directory: the version row, its content, its
uses and the audit event of an upload or a deletion commit together or not at all, every
web process and backup sees the same bytes without a shared volume, and the size limit
(`WORKLOAD_MAX_BYTES`) keeps a row reasonable (PostgreSQL compresses large values itself).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from contracts_app.document.datasets import WORKLOAD_NAME_PATTERN

WORKLOAD_NAME_VALIDATOR = RegexValidator(
    f"^{WORKLOAD_NAME_PATTERN}$",
    "a workload name is 1-100 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit",
)


class _Immutable(models.Model):
    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The database refuses it too (triggers in migration 0002) for writes that bypass the model.
        if self.pk is not None and not self._state.adding:
            raise ValueError(f"{type(self).__name__} rows are immutable")
        super().save(*args, **kwargs)


class WorkloadVersion(_Immutable):
    class Format(models.TextChoices):
        SPECPACT = "specpact", "SpecPact workload JSONL"
        OPENAI = "openai", "OpenAI chat-completions request logs"
        SHAREGPT = "sharegpt", "ShareGPT conversations"
        VLLM = "vllm", "vLLM benchmark JSONL"
        SGLANG = "sglang", "SGLang benchmark JSONL"
        MOONCAKE = "mooncake", "Mooncake trace"

    name = models.CharField(max_length=100, validators=[WORKLOAD_NAME_VALIDATOR])
    digest = models.CharField(max_length=71)
    format = models.CharField(max_length=16, choices=Format.choices)
    source = models.CharField(max_length=200, blank=True, help_text="where it came from, in words")
    requests = models.PositiveIntegerField()
    conversations = models.PositiveIntegerField()
    size_bytes = models.PositiveBigIntegerField(help_text="canonical form")
    upload_bytes = models.PositiveBigIntegerField()
    stats = models.JSONField(help_text="computed once at import (workloads_app/formats/stats.py)")
    redaction = models.JSONField(null=True, blank=True, help_text="replacements by kind; null: not asked")
    warnings = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["name", "digest"], name="workload_version_unique"),
        ]

    def __str__(self) -> str:
        return self.ref

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.digest}"

    @property
    def dataset(self) -> str:
        """What a contract writes in `measurement.workloads.<lane>.dataset`."""
        return f"workload:{self.ref}"


class WorkloadContent(_Immutable):
    version = models.OneToOneField(
        WorkloadVersion, primary_key=True, on_delete=models.PROTECT, related_name="content"
    )
    data = models.BinaryField(help_text="the canonical SpecPact JSONL bytes")

    def __str__(self) -> str:
        return f"content of {self.version_id}"


class WorkloadUploader(_Immutable):
    """Someone who uploaded these bytes under this name: the first uploader (`created_by`)
    and anyone who uploaded the same content again, who holds it as much and may see and
    use it (docs/workloads.md, "Privacy")."""

    workload = models.ForeignKey(WorkloadVersion, on_delete=models.PROTECT, related_name="uploaders")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workload", "user"], name="workload_uploader_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} uploaded {self.workload_id}"


class WorkloadUse(_Immutable):
    """A contract version names this workload for a lane (recorded when the version is
    stored; both are immutable, so the row never changes)."""

    workload = models.ForeignKey(WorkloadVersion, on_delete=models.PROTECT, related_name="uses")
    contract_version = models.ForeignKey(
        "contracts_app.ContractVersion", on_delete=models.PROTECT, related_name="workload_uses"
    )
    lane = models.CharField(max_length=63)

    class Meta:
        ordering = ["contract_version", "lane"]
        constraints = [
            models.UniqueConstraint(fields=["contract_version", "lane"], name="workload_use_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.contract_version_id}:{self.lane} -> {self.workload_id}"
