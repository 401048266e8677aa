from django.contrib import admin
from django.http import HttpRequest

from accounts_app.models import ApiToken, UserRole


@admin.register(UserRole)
class UserRoleAdmin(admin.ModelAdmin):
    """Roles are set here (or by createtoken --create-user); superusers are admins anyway."""

    list_display = ["user", "role"]
    list_filter = ["role"]
    search_fields = ["user__username"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Read-only: tokens are issued and revoked through the API or createtoken, which audit it."""

    list_display = ["prefix", "user", "role", "route_slugs", "expires_at", "revoked_at", "last_used_at"]
    list_filter = ["role"]
    search_fields = ["prefix", "user__username"]
    exclude = ["hashed_key"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
