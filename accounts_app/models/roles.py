from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts_app.roles import Role


class UserRole(models.Model):
    """A user's role. Superusers are admins without a row; an active user without a row
    is a viewer (they can log in and read, nothing more)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="specpact_role"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in Role]), name="user_role_known"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.role}"
