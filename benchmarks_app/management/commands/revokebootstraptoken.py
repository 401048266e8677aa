"""`manage.py revokebootstraptoken HINT | --list`: stop a bootstrap token from enrolling
more workers (workers it already enrolled keep their own tokens)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from audit_app.actors import Actor
from benchmarks_app.models import BootstrapToken
from benchmarks_app.services.workers import bootstrap_token_revoke
from kernel.commands import ContextCommand


class Command(ContextCommand):
    help = "Revoke a bootstrap token by its hint (the first 10 characters), or list them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hint", nargs="?", help="the token's first characters, e.g. spb_AbC123")
        parser.add_argument("--list", action="store_true", help="list bootstrap tokens and exit")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["list"]:
            for row in BootstrapToken.objects.all():
                state = "revoked" if row.revoked_at else f"expires {row.expires_at or 'never'}"
                self.stdout.write(f"{row.hint}…  {state}  used {row.uses}×  {row.note}")
            return
        hint = options["hint"] or ""
        matches = list(BootstrapToken.objects.filter(hint__startswith=hint[:10], revoked_at__isnull=True))
        if len(hint) < 6 or len(matches) != 1:
            raise CommandError(
                f"{len(matches)} unrevoked bootstrap tokens match {hint!r}: give a longer hint"
            )
        bootstrap_token_revoke(token=matches[0], actor=Actor.system("manage.py revokebootstraptoken"))
        self.stdout.write(f"revoked {matches[0].hint}…")
