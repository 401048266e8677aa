from django.contrib import admin

from contracts_app.models import ContractVersion, Route
from kernel.admin import ReadOnlyAdmin


@admin.register(Route)
class RouteAdmin(ReadOnlyAdmin):
    """Routes are created by the API (or a first upload) and change only through releases."""

    list_display = ["slug", "active_version", "active_since"]


@admin.register(ContractVersion)
class ContractVersionAdmin(ReadOnlyAdmin):
    """Versions are uploaded through the API, which validates the document and its digest."""

    list_display = ["route", "number", "digest", "created_at"]
