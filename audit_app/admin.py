from django.contrib import admin
from django.http import HttpRequest

from audit_app.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: the database refuses changes anyway (migration 0002)."""

    list_display = ["id", "at", "actor_label", "action", "object_type", "object_id", "route"]
    list_filter = ["action"]
    search_fields = ["actor_label", "object_id", "route"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
