from django.contrib import admin

from audit_app.models import AuditEvent
from kernel.admin import ReadOnlyAdmin


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """The database refuses changes anyway (migration 0002)."""

    list_display = ["id", "at", "actor_label", "action", "object_type", "object_id", "route"]
    list_filter = ["action"]
    search_fields = ["actor_label", "object_id", "route"]
