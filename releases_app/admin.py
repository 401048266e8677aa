from django.contrib import admin

from kernel.admin import ReadOnlyAdmin
from releases_app.models import Decision, Release


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdmin):
    """Releases change state only through releases_app.services (audited)."""

    list_display = ["id", "route", "state", "candidate_version", "gate_verdict", "proposed_by", "updated_at"]
    list_filter = ["state", "gate_verdict"]


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ["release", "kind", "actor_label", "override", "created_at"]
