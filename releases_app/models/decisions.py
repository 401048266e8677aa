from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual

from releases_app.choices import MIN_JUSTIFICATION_LENGTH, DecisionKind


class Decision(models.Model):
    """A person's decision on a release: approve (with an optional override of a failed
    gate), reject, cancel or roll back. The release's proposer is copied onto the row (and
    a composite foreign key makes sure it is the real one), so the database itself refuses
    an approval by the proposer: four eyes even for writes that bypass the services."""

    release = models.ForeignKey("releases_app.Release", on_delete=models.PROTECT, related_name="decisions")
    kind = models.CharField(max_length=10, choices=DecisionKind.choices)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_label = models.CharField(max_length=160)
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    override = models.BooleanField(default=False)
    justification = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(kind=DecisionKind.APPROVE)
                | (models.Q(decided_by__isnull=False) & ~models.Q(decided_by=models.F("proposed_by"))),
                name="decision_four_eyes",
                violation_error_message="the proposer of a release can't approve it",
            ),
            models.CheckConstraint(
                condition=models.Q(override=False)
                | models.Q(
                    GreaterThanOrEqual(Length("justification"), MIN_JUSTIFICATION_LENGTH),
                    kind=DecisionKind.APPROVE,
                ),
                name="decision_override_justified",
            ),
            models.CheckConstraint(condition=~models.Q(reason=""), name="decision_reason_given"),
            models.CheckConstraint(
                condition=models.Q(kind__in=DecisionKind.values), name="decision_kind_known"
            ),
            # At most one approval per release, whatever races happen above.
            models.UniqueConstraint(
                fields=["release"],
                condition=models.Q(kind=DecisionKind.APPROVE),
                name="decision_one_approval",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of release #{self.release_id}"
