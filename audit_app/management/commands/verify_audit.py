"""`manage.py verify_audit [--checkpoints FILE] [--against FILE] [--public-key PEM]`: walk
the audit chain and hold it to the signed checkpoints; exit 1 and name the first broken link.

`--checkpoints` adds the checkpoints of an exported file (`audit_checkpoint --export`),
kept outside the database: someone who deleted the stored checkpoints along with the
events they cover is caught by the copy. `--public-key` checks the signatures with that
key (PEM) instead of the configured keys, e.g. on a machine without them. `--against`
holds the database to a head export (AUDIT_HEAD_EXPORT_FILE's JSON lines, audit_app/heads.py)
instead of the configured one: an exported head the checkpoint rows no longer hold is a break."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit_app.checkpoints import checkpoints_from_export, describe, verify_audit
from audit_app.heads import heads_read
from audit_app.signing import load_public_pem


class Command(BaseCommand):
    help = "Verify the audit trail's hash chain and its signed checkpoints; exit 1 names the first break."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--checkpoints", metavar="FILE", help="an export of audit_checkpoint --export")
        parser.add_argument("--public-key", metavar="PEM", help="verify signatures with this public key")
        parser.add_argument(
            "--against",
            metavar="FILE",
            help="a head export (AUDIT_HEAD_EXPORT_FILE's JSON lines) to hold the rows to",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        extra, public, against = [], None, None
        try:
            if options["checkpoints"]:
                extra = checkpoints_from_export(json.loads(Path(options["checkpoints"]).read_text()))
            if options["against"]:
                if not Path(options["against"]).is_file():
                    raise ValueError(f"{options['against']}: no such file")
                against = heads_read(options["against"])
            if options["public_key"]:
                public = load_public_pem(Path(options["public_key"]).read_text())
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        status = verify_audit(extra=extra, public=public, against=against)
        if status["valid"]:
            self.stdout.write(f"audit chain valid: {status['events']} events; {describe(status)}")
            return
        at = f" at event #{status['first_broken']}" if status["first_broken"] is not None else ""
        self.stderr.write(f"audit chain BROKEN{at} ({status['events']} events): {describe(status)}")
        sys.exit(1)
