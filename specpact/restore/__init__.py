"""`manage.py restore_check`: is a database restored from a dump one the control plane can
trust? Each check returns a `Checked`; `run_checks` runs them all, cheapest first
(docs/backup.md says when to run it and what each line means)."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from specpact.restore.data import check_audit, check_idempotency, check_outbox, table_counts
from specpact.restore.findings import Checked
from specpact.restore.schema import check_constraints, check_migrations, check_sequences, check_triggers


def run_checks(*, public: Ed25519PublicKey | None = None) -> list[Checked]:
    # Migrations first: on a schema this code doesn't know, the others' queries may not mean much.
    return [
        check_migrations(),
        check_constraints(),
        check_triggers(),
        check_sequences(),
        check_audit(public=public),
        check_idempotency(),
        check_outbox(),
        table_counts(),
    ]
