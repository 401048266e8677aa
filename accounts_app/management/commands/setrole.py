"""`manage.py setrole USERNAME ROLE [--routes SLUGS]`: change a user's role (and route
scope) through the services, so the change is validated and recorded in the audit trail
(the admin is read-only). `--routes "a b"` limits the user to those routes, `--routes ""`
lifts the limit; without it the scope stays as it is."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.db import transaction

from accounts_app.roles import ROLE_ORDER
from accounts_app.selectors import user_role, user_route_slugs
from accounts_app.services import user_set_role, user_set_routes
from audit_app.actors import Actor
from kernel.commands import ContextCommand
from kernel.errors import DomainError, error_words


class Command(ContextCommand):
    help = "Set a user's role (viewer, operator, approver, admin); the change is audited."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("role", choices=list(ROLE_ORDER))
        parser.add_argument(
            "--routes",
            default=None,
            help='route slugs, separated by spaces or commas, the user is limited to; "" for every route',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        if user.is_superuser:
            # A superuser is an admin whatever its row says: setting a row would mislead.
            raise CommandError(f"{user.get_username()} is a superuser, so an admin whatever its role")
        before = user_role(user)
        actor = Actor.system("system:setrole")
        try:
            with transaction.atomic():
                user_set_role(user=user, role=options["role"], actor=actor)
                if options["routes"] is not None:
                    slugs = [s for s in re.split(r"[\s,]+", options["routes"]) if s]
                    user_set_routes(user=user, routes=slugs, actor=actor)
        except DomainError as exc:
            raise CommandError(error_words(exc)) from exc
        scope = user_route_slugs(user)
        routes = ", ".join(scope) if scope else "every route"
        self.stdout.write(f"{user.get_username()}: {before} → {options['role']} ({routes})")
