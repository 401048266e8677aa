from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts_app.roles import Role


class UserRole(models.Model):
    """A user's role and route scope. Superusers are admins without a row, over every
    route; an active user without a row is a viewer (they can log in and read, nothing
    more). An empty `route_slugs` means every route, else only those: every page and API
    view answers 404 for the others (accounts_app/permissions.py), and the user's tokens
    are held within them. Slugs, like a token's, so a scope may name a route before its
    first upload creates it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="specpact_role"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    route_slugs = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in Role]), name="user_role_known"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.role}"
