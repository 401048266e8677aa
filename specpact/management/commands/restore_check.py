"""`manage.py restore_check [--json] [--public-key PEM]`: check a database restored from a
dump before the control plane serves from it (docs/backup.md). Prints each check in words
with its counts; exit 1 when any fails, naming what (a migration, a table, an event, a key).

`--json` prints `{"ok": bool, "checks": [{"name", "ok", "summary", "problems", "counts"}]}`
for pipelines. `--public-key` verifies the audit checkpoints with that key (PEM) instead of
the configured ones, e.g. on a machine that holds no signing key."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from audit_app.signing import load_public_pem
from specpact.restore import run_checks


class Command(BaseCommand):
    help = (
        "Check a restored database: migrations, constraints, triggers, sequences, audit chain, "
        "idempotency keys, outbox."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the findings as JSON")
        parser.add_argument(
            "--public-key", metavar="PEM", help="verify audit checkpoints with this public key"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError(f"restore_check checks a PostgreSQL database; this one is {connection.vendor}")
        public = None
        if options["public_key"]:
            try:
                public = load_public_pem(Path(options["public_key"]).read_text())
            except (OSError, ValueError) as exc:
                raise CommandError(str(exc)) from exc
        checks = run_checks(public=public)
        ok = all(c.ok for c in checks)
        if options["json"]:
            self.stdout.write(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}, indent=2))
        else:
            for c in checks:
                self.stdout.write(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.summary}")
                for problem in c.problems:
                    self.stdout.write(f"     - {problem}")
            failed = [c.name for c in checks if not c.ok]
            verdict = f"FAILED: {', '.join(failed)}" if failed else "passed"
            self.stdout.write(
                f"restore check {verdict} ({len(checks)} checks on {connection.settings_dict['NAME']})"
            )
        if not ok:
            sys.exit(1)
