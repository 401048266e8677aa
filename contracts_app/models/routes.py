from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models

from contracts_app.document.schema import ROUTE_HELP, ROUTE_PATTERN
from kernel.api.etags import content_etag

# The contract's own `route` rule: DNS-label-like, so it works in URLs, queue names and
# metric labels alike.
ROUTE_SLUG_VALIDATOR = RegexValidator(ROUTE_PATTERN, ROUTE_HELP)


class RouteQuerySet(models.QuerySet["Route"]):
    def with_active_version(self) -> RouteQuerySet:
        return self.select_related("active_version")


class Route(models.Model):
    """A named serving lane. Its active version only changes through a release's
    activation or rollback (releases_app), never by editing this row directly."""

    slug = models.CharField(max_length=64, unique=True, validators=[ROUTE_SLUG_VALIDATOR])
    description = models.TextField(blank=True)
    active_version = models.ForeignKey(
        "contracts_app.ContractVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    active_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RouteQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @property
    def etag(self) -> str:
        """Changes with what `routes/{slug}/` shows: its description and active version."""
        since = self.active_since.isoformat() if self.active_since else ""
        return content_etag("route", self.pk, self.description, self.active_version_id, since)
