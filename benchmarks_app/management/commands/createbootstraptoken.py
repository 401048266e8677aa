"""`manage.py createbootstraptoken [--expires 7d] [--note TEXT]`: prints the token alone
(for `specpact-worker run --bootstrap-token`); only its hash is stored."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone

from audit_app.actors import Actor
from benchmarks_app.services.workers import bootstrap_token_create
from kernel.commands import ContextCommand

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> timedelta:
    match = re.fullmatch(r"(\d+)([smhd])", text.strip())
    if not match or int(match.group(1)) == 0:
        raise CommandError(f"--expires {text!r}: give a positive number and a unit, e.g. 30m, 12h, 7d")
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


class Command(ContextCommand):
    help = "Create a bootstrap token that lets new workers register; prints the token alone."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--expires", help="lifetime such as 30m, 12h or 7d (default: no expiry)")
        parser.add_argument("--note", default="", help="what it is for, shown to admins")

    def handle(self, *args: Any, **options: Any) -> None:
        expires_at = timezone.now() + parse_duration(options["expires"]) if options["expires"] else None
        _, token = bootstrap_token_create(
            actor=Actor.system("manage.py createbootstraptoken"), expires_at=expires_at, note=options["note"]
        )
        self.stdout.write(token)
