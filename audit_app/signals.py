"""What the audit trail tells the rest of the project, without knowing who listens.

- `event_recorded(event=AuditEvent)` is sent by `audit_record` inside the transaction that
  recorded the event (every state change's own transaction): a receiver's writes commit
  or roll back with it. webhooks_app writes its outbox rows here.
- `chain_failed(status=dict)` is sent whenever a verification of the chain finds it broken
  (`verify_audit`: the API, the page, the command, the hourly checkpoint), with
  verify_audit's answer.
- `checkpoint_signed(checkpoint=dict)` is sent by `checkpoint_create` inside the
  transaction that stored a new checkpoint, with the head as exported
  (audit_app/heads.py): webhooks_app writes an `audit.checkpoint_signed` delivery, a copy
  of the head off the database."""

from __future__ import annotations

from django.dispatch import Signal

event_recorded = Signal()
chain_failed = Signal()
checkpoint_signed = Signal()
