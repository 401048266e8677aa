from django.contrib import admin
from django.http import HttpRequest

from contracts_app.models import ContractVersion, Route


@admin.register(Route)
class RouteAdmin(admin.ModelAdmin):
    list_display = ["slug", "active_version", "active_since"]
    readonly_fields = ["active_version", "active_since"]


@admin.register(ContractVersion)
class ContractVersionAdmin(admin.ModelAdmin):
    list_display = ["route", "number", "digest", "created_at"]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
