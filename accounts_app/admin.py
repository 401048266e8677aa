from django.contrib import admin

from accounts_app.models import ApiToken, UserRole
from kernel.admin import ReadOnlyAdmin


@admin.register(UserRole)
class UserRoleAdmin(ReadOnlyAdmin):
    """Roles change with `manage.py setrole` (or `createtoken --create-user`), which audit it."""

    list_display = ["user", "role"]
    list_filter = ["role"]
    search_fields = ["user__username"]


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Tokens are issued and revoked through the API or createtoken, which audit it."""

    list_display = ["prefix", "user", "role", "route_slugs", "expires_at", "revoked_at", "last_used_at"]
    list_filter = ["role"]
    search_fields = ["prefix", "user__username"]
    exclude = ["hashed_key"]
