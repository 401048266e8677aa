"""`manage.py setrole USERNAME ROLE`: change a user's role through the service, so the
change is validated and recorded in the audit trail (the admin is read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from accounts_app.roles import ROLE_ORDER
from accounts_app.selectors import user_role
from accounts_app.services import user_set_role
from audit_app.actors import Actor
from kernel.commands import ContextCommand
from kernel.errors import DomainError


class Command(ContextCommand):
    help = "Set a user's role (viewer, operator, approver, admin); the change is audited."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("role", choices=list(ROLE_ORDER))

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        if user.is_superuser:
            # A superuser is an admin whatever its row says: setting a row would mislead.
            raise CommandError(f"{user.get_username()} is a superuser, so an admin whatever its role")
        before = user_role(user)
        try:
            user_set_role(user=user, role=options["role"], actor=Actor.system("system:setrole"))
        except DomainError as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(f"{user.get_username()}: {before} → {options['role']}")
