from django.contrib import admin
from django.http import HttpRequest

from releases_app.models import Decision, Release


class _ReadOnly(admin.ModelAdmin):
    """Read-only: releases change state only through releases_app.services (audited)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Release)
class ReleaseAdmin(_ReadOnly):
    list_display = ["id", "route", "state", "candidate_version", "gate_verdict", "proposed_by", "updated_at"]
    list_filter = ["state", "gate_verdict"]


@admin.register(Decision)
class DecisionAdmin(_ReadOnly):
    list_display = ["release", "kind", "actor_label", "override", "created_at"]
