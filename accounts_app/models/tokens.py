from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts_app.roles import Role

PREFIX_LENGTH = 10
_ALPHABET = string.ascii_letters + string.digits


def hash_key(key: str) -> str:
    """SHA-256 of the whole key. The secret half has 256 bits of entropy, so a slow hash
    would add cost per request and no safety (the djangorestframework-api-key argument)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> tuple[str, str]:
    """(prefix, full key). The prefix is the public lookup handle; the secret is never stored."""
    prefix = "".join(secrets.choice(_ALPHABET) for _ in range(PREFIX_LENGTH))
    return prefix, f"{prefix}.{secrets.token_urlsafe(32)}"


class TokenPurpose(models.TextChoices):
    """What a token may be used for. A `rollout_gate` token is for progressive-delivery
    tools (Argo Rollouts' analysis, Flagger's webhooks): it is scoped to routes, has the
    viewer role, and every API view but those refuses it (`accepts_rollout_gate_tokens`)."""

    GENERAL = "general", "general"
    ROLLOUT_GATE = "rollout_gate", "rollout gate (Argo Rollouts analysis, Flagger webhooks)"


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def usable(self) -> ApiTokenQuerySet:
        now = timezone.now()
        return self.filter(revoked_at__isnull=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )

    def for_key(self, key: str) -> ApiToken | None:
        """The token whose key this is, or None. Compared in constant time."""
        prefix, dot, _secret = key.partition(".")
        if not dot or len(prefix) != PREFIX_LENGTH:
            return None
        token = self.select_related("user").filter(prefix=prefix).first()
        if token is None or not hmac.compare_digest(token.hashed_key, hash_key(key)):
            return None
        return token


class ApiToken(models.Model):
    """An API token for scripts and pipelines: `prefix.secret`, stored as the prefix and a
    SHA-256 of the whole key, shown once at issue. Its role is at most its user's (and is
    capped again at every request, so demoting a user demotes their tokens); an empty
    `route_slugs` means every route, else only those (slugs, so that a pipeline can be
    scoped to a route before its first upload creates it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, unique=True)
    hashed_key = models.CharField(max_length=64)
    role = models.CharField(max_length=16, choices=Role.choices)
    route_slugs = models.JSONField(default=list, blank=True)
    purpose = models.CharField(max_length=16, choices=TokenPurpose.choices, default=TokenPurpose.GENERAL)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"token:{self.prefix}"

    @property
    def is_scoped(self) -> bool:
        return bool(self.route_slugs)

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def state(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if self.is_expired else "active"

    def allows_route(self, route: Any) -> bool:
        """`route` is a Route or a slug."""
        slug = str(getattr(route, "slug", route))
        return not self.route_slugs or slug in self.route_slugs
