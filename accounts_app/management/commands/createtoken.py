"""`manage.py createtoken USERNAME --role ROLE [--route SLUG]… [--purpose rollout_gate]
[--create-user]`: prints the
new token alone on stdout, so a script can capture it: TOKEN=$(manage.py createtoken …)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from accounts_app.models import TokenPurpose
from accounts_app.roles import ROLE_ORDER
from accounts_app.services import token_issue, user_create
from audit_app.actors import Actor
from kernel.commands import ContextCommand
from kernel.errors import DomainError


class Command(ContextCommand):
    help = "Issue an API token and print it alone on stdout (it is shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=list(ROLE_ORDER))
        parser.add_argument(
            "--route", action="append", default=[], metavar="SLUG", help="scope to this route (repeatable)"
        )
        parser.add_argument(
            "--create-user", action="store_true", help="create the user with this role if missing"
        )
        parser.add_argument(
            "--purpose",
            default=TokenPurpose.GENERAL,
            choices=list(TokenPurpose.values),
            help="rollout_gate: only Argo's analysis and Flagger's hooks (needs --route, --role viewer)",
        )
        parser.add_argument("--name", default="", help="a label for the token")
        parser.add_argument("--expires-days", type=int, default=None, help="expire after N days")

    def handle(self, *args: Any, **options: Any) -> None:
        actor = Actor.system("system:createtoken")
        username: str = options["username"]
        user = get_user_model().objects.filter(username=username).first()
        expires_days = options["expires_days"]
        if expires_days is not None and expires_days < 1:
            raise CommandError("--expires-days must be at least 1")
        try:
            if user is None:
                if not options["create_user"]:
                    raise CommandError(f"no user {username!r}; pass --create-user to create it")
                user = user_create(username=username, role=options["role"], actor=actor)
            issued = token_issue(
                user=user,
                role=options["role"],
                routes=options["route"],
                name=options["name"] or "createtoken",
                purpose=options["purpose"],
                expires_at=timezone.now() + timedelta(days=expires_days) if expires_days else None,
                actor=actor,
            )
        except DomainError as exc:
            messages = [exc.detail, *(f"{e.path}: {e.message}" for e in exc.errors)]
            raise CommandError("; ".join(messages)) from exc
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(issued.key)
