"""`manage.py relay_outbox [--loop] [--now]`: publish pending run dispatches to the broker.

Beat runs the same relay every few seconds; this command is for installations without
beat, and for an operator who knows the broker is back (`--now` forgets the backoff)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from benchmarks_app.services.outbox import outbox_relay, outbox_retry_now
from kernel.commands import ContextCommand


class Command(ContextCommand):
    help = "Publish pending outbox messages (run dispatches) to the broker."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", action="store_true", help="keep relaying every OUTBOX_RELAY_INTERVAL_S")
        parser.add_argument("--now", action="store_true", help="retry messages now, ignoring their backoff")

    def handle(self, *args: Any, **options: Any) -> None:
        while True:
            if options["now"]:
                outbox_retry_now()
            report = outbox_relay()
            self.stdout.write(
                f"published {report.published}, discarded {report.discarded}, failed {report.failed}"
                + (f" ({report.last_error})" if report.last_error else "")
            )
            if not options["loop"]:
                return
            time.sleep(float(settings.OUTBOX_RELAY_INTERVAL_S))
