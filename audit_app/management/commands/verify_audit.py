"""`manage.py verify_audit`: walk the audit chain; exit 1 and name the first broken link."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand

from audit_app.chain import verify_chain


class Command(BaseCommand):
    help = "Verify the audit trail's hash chain; exit status 1 names the first broken event."

    def handle(self, *args: Any, **options: Any) -> None:
        status = verify_chain()
        if status["valid"]:
            self.stdout.write(f"audit chain valid: {status['events']} events")
            return
        self.stderr.write(
            f"audit chain BROKEN at event #{status['first_broken']} "
            f"({status['events']} events): it or its link to the event before it was altered"
        )
        sys.exit(1)
