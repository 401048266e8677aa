from django.contrib import admin

from kernel.admin import ReadOnlyAdmin
from live_app.models import SecretBinding


@admin.register(SecretBinding)
class SecretBindingAdmin(ReadOnlyAdmin):
    """Bindings change through the API (checked against the fences, audited); here they are
    only read. The secret itself is nowhere in SpecPact to show."""

    list_display = ("route", "name", "kind", "reference", "hosts", "created_at")
    list_filter = ("kind",)
    search_fields = ("name", "reference", "route__slug")
