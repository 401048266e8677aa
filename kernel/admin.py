"""The Django admin is a read-only window: every write goes through the services, which
validate it and record it in the audit trail. An admin form would skip both (a contract
version with a made-up digest, a role changed or a route deleted with no event).

Domain apps register their models with `ReadOnlyAdmin`; the users and groups of
`django.contrib.auth` are re-registered read-only here, because a superuser flag ticked in
the admin is a role change too (superusers are admins). Roles change with
`manage.py setrole` (audited); passwords with `manage.py changepassword`.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """Lists and detail pages; no add, change or delete (nor the bulk delete action)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyUserAdmin(ReadOnlyAdmin, UserAdmin):
    pass


class ReadOnlyGroupAdmin(ReadOnlyAdmin, GroupAdmin):
    pass


def _reregister() -> None:
    from django.contrib.auth import get_user_model

    for model, model_admin in ((get_user_model(), ReadOnlyUserAdmin), (Group, ReadOnlyGroupAdmin)):
        if admin.site.is_registered(model):
            admin.site.unregister(model)
        admin.site.register(model, model_admin)


_reregister()
