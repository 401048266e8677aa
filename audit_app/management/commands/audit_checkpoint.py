"""`manage.py audit_checkpoint [--export FILE | --public-key]`: sign a checkpoint of the
audit chain's head now (beat does it every AUDIT_CHECKPOINT_INTERVAL_S), export every
checkpoint with the public key (`-` for stdout), or print the public key (PEM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from audit_app.checkpoints import checkpoint_create, checkpoints_export
from audit_app.signing import public_pem, signing_key
from kernel.commands import ContextCommand
from kernel.errors import DomainError


class Command(ContextCommand):
    help = "Sign a checkpoint of the audit chain's head; or export the checkpoints, or print the public key."

    def add_arguments(self, parser: CommandParser) -> None:
        what = parser.add_mutually_exclusive_group()
        what.add_argument(
            "--export", metavar="FILE", help="write every checkpoint and the public key as JSON"
        )
        what.add_argument("--public-key", action="store_true", help="print the public key (PEM)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["public_key"]:
            key = signing_key()
            if key is None:
                raise CommandError("no audit signing key is configured (AUDIT_SIGNING_KEY / _FILE)")
            self.stdout.write(public_pem(key.public_key()), ending="")
            return
        if options["export"]:
            text = json.dumps(checkpoints_export(), indent=2) + "\n"
            if options["export"] == "-":
                self.stdout.write(text, ending="")
            else:
                Path(options["export"]).write_text(text)
            return
        try:
            row, created = checkpoint_create()
        except DomainError as exc:
            raise CommandError(exc.detail) from exc
        if row is None:
            self.stdout.write("the audit chain is empty: nothing to sign")
        elif created:
            self.stdout.write(
                f"checkpoint #{row.pk} signed event #{row.event_id} ({row.event_hash[:12]}…) "
                f"with key {row.key_id}"
            )
        else:
            self.stdout.write(f"event #{row.event_id} is already signed by checkpoint #{row.pk}")
