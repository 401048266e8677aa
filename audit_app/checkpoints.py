"""Signed checkpoints of the audit chain's head, and the check that holds the chain to them.

The hash chain alone catches an edited event, but not someone with the database's
superuser rights who edits an event and recomputes every later hash, or who deletes the
newest events: the chain they leave verifies. A checkpoint is an Ed25519 signature over
(event id, event hash, time) with a key the database never holds (audit_app/signing.py),
so such a rewrite leaves an event at or before a checkpoint whose hash is not the one
signed, and a deleted tail leaves a checkpoint naming an event that is gone.

Checkpoints are signed only over a chain that verified whole, so a later walk may start
after the latest checkpoint whose event still has the signed hash (`verify_chain(after=…)`,
what the audit page can use instead of the full walk), trusting the walk made at signing
for the events before it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, TypedDict

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from audit_app.chain import verify_chain
from audit_app.evidence import Evidence
from audit_app.heads import configured_heads, head_export
from audit_app.holding import Finding, Held, Signed, hold_checkpoints, hold_export
from audit_app.marks import mark_record_full
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signals import chain_failed, checkpoint_signed
from audit_app.signing import (
    MESSAGE_PREFIX,
    checkpoint_message,
    key_id,
    public_pem,
    sign,
    signature_valid,
    signing_key,
    verifying_key,
    verifying_keys,
)
from kernel.errors import Conflict, DomainError
from kernel.text import utc_words

log = logging.getLogger("specpact.audit")

EXPORT_FORMAT = "specpact-audit-checkpoints/v1"


class ChainChecked(TypedDict):
    """What a status rests on. scope `full`: every event was hashed now. `since_mark`: the
    events after the stored mark (AuditChainMark), the ones before it by the last full
    walk (`full_at`, through `full_through`), which beat repeats (AUDIT_FULL_VERIFY_INTERVAL_S)."""

    scope: str
    at: str
    walked_from: int
    walked: int
    full_at: str | None
    full_through: int


class AuditStatus(TypedDict):
    """`GET audit/verify`: DESIGN §8's three fields, then what the checkpoints add.
    problem: null, `broken_link` (the walk), `rewritten` (an event's hash is not the one
    a checkpoint signed), `truncated` (a checkpoint names an event past the head),
    `forged_checkpoint` (a checkpoint whose signature verifies under none of the
    configured keys, or whose key id was changed), `checkpoint_missing` (a head exported
    off the database that its rows no longer hold), or `result_changed` (a result the gate
    judged no longer has the digest its `release.gate_completed` event recorded). detail:
    the break in words (which checkpoint or event, and why), or null.
    checkpoint: the one that caught it, else the latest that still holds. intact_through:
    the last event a checkpoint still vouches for before anything broken. checked: what
    was hashed for this answer, and when the whole chain last was."""

    valid: bool
    events: int
    first_broken: int | None
    problem: str | None
    detail: str | None
    checkpoint: dict[str, Any] | None
    intact_through: int | None
    checked: ChainChecked


def compose_status(
    *,
    events: int,
    walk_broken: int | None,
    held: Held,
    checked: ChainChecked,
    more: Iterable[Finding | None] = (),
) -> AuditStatus:
    """The walk's first broken link, the checkpoints' findings and `more` (the head export's,
    the evidence checks') as one answer: the break at the earliest event is the one named;
    one that names no event (a forged or missing checkpoint) only when nothing else broke."""
    found = [f for f in (held.finding, *more) if f is not None]
    if walk_broken is not None:
        found.append(Finding("broken_link", walk_broken))
    first = min(
        found,
        key=lambda f: (f.first_broken is None, f.first_broken or 0, f.problem != "broken_link"),
        default=None,
    )
    first_broken = first.first_broken if first else None
    vouched = [c for c in held.matched if first_broken is None or c.event_id < first_broken]
    shown = (first.culprit if first else None) or (vouched[-1] if vouched else None)
    status: AuditStatus = {
        "valid": first is None,
        "events": events,
        "first_broken": first_broken,
        "problem": first.problem if first else None,
        "detail": first.detail if first else None,
        "checkpoint": shown.as_dict() if shown else None,
        "intact_through": vouched[-1].event_id if vouched else None,
        "checked": checked,
    }
    if first is not None:
        chain_failed.send(sender=AuditEvent, status=dict(status))
    return status


def export_finding(
    against: Sequence[Signed] | None, rows: Iterable[Signed], keys: Sequence[Ed25519PublicKey], head_id: int
) -> Finding | None:
    """The head export (`against`, else the configured file) held to the checkpoint rows."""
    if against is None:
        try:
            against = configured_heads()
        except ValueError as exc:
            return Finding("checkpoint_missing", None, None, f"the head export can't be read: {exc}")
    if not against:
        return None
    return hold_export(against, rows, keys, head_id)


def verify_audit(
    *,
    extra: Sequence[Signed] = (),
    public: Ed25519PublicKey | None = None,
    against: Sequence[Signed] | None = None,
) -> AuditStatus:
    """The full walk, then every checkpoint (the stored ones and `extra`, e.g. from an
    exported file) checked against the chain, the head export (`against`, else
    AUDIT_HEAD_EXPORT_FILE's) against the checkpoint rows, and the evidence events name
    (audit_app/evidence.py) against what it names. `public` replaces the configured keys
    (signing key and AUDIT_VERIFY_KEYS). The server's own view (no `extra`, `public` or
    `against`) is recorded on the mark (audit_app/marks.py), which later loads walk on from."""
    head = AuditEvent.objects.order_by("-id").values_list("id", "hash").first()
    head_id = head[0] if head else 0
    evidence = Evidence()
    chain = verify_chain(through=head_id, visit=evidence.visit)
    keys = [public] if public is not None else verifying_keys()
    rows = list(AuditCheckpoint.objects.all())
    stored = [Signed.of(r) for r in rows]
    held = hold_checkpoints([*stored, *extra], keys, head_id)
    now = timezone.now()
    checked: ChainChecked = {
        "scope": "full",
        "at": now.isoformat(),
        "walked_from": 1,
        "walked": chain["events"],
        "full_at": now.isoformat(),
        "full_through": head_id,
    }
    status = compose_status(
        events=chain["events"],
        walk_broken=chain["first_broken"],
        held=held,
        checked=checked,
        more=[
            export_finding(against, stored, keys, head_id),
            evidence.finding(),
        ],
    )
    if not extra and public is None and against is None:
        mark_record_full(
            status=dict(status),
            through=head,
            checkpoints_through=max((r.pk for r in rows), default=0),
            at=now,
        )
    return status


def checkpoint_words(status: AuditStatus) -> str:
    """For the audit page, while the chain holds: what the newest checkpoint vouches for,
    "checkpoint #3, signed at 2026-03-02 09:00:00 UTC, covers events 1 to 120" (an en dash on the page)."""
    cp = status["checkpoint"]
    if status["problem"] is not None:
        return describe(status)
    if not cp:
        return "No signed checkpoint yet: nothing outside the database vouches for these events."
    which = f"Checkpoint #{cp['id']}" if cp["id"] else "An exported checkpoint"
    return (
        f"{which}, signed at {utc_words(cp['signed_at'])}, covers events 1\u2013{cp['event_id']}; "
        "the chain still matches it."
    )


def describe(status: AuditStatus) -> str:
    """The status in words, for the command and the audit page."""
    cp = status["checkpoint"]
    which = (f"checkpoint #{cp['id']}" if cp["id"] else "an exported checkpoint") if cp else ""
    signed = f"{which} signed event #{cp['event_id']} at {utc_words(cp['signed_at'])}" if cp else ""
    after = f" (after event #{status['intact_through']}, which a checkpoint still vouches for)"
    after = after if status["intact_through"] else ""
    match status["problem"]:
        case None:
            return f"{signed}; the chain still matches it." if cp else "no signed checkpoint yet."
        case "broken_link":
            return (
                f"event #{status['first_broken']}, or its link to the event before it, was altered "
                "outside SpecPact."
            )
        case "rewritten":
            return (
                f"{signed} with another hash: the chain was rewritten at or before event "
                f"#{status['first_broken']}{after} and the later hashes recomputed{_also(status)}."
            )
        case "truncated":
            gone = int(status["first_broken"] or 0)
            return (
                f"{signed}, but the chain ends at #{gone - 1}: the events from #{gone} on were "
                f"deleted{_also(status)}."
            )
        case "forged_checkpoint":
            return f"{status.get('detail') or signed}: the checkpoint was forged or altered."
        case _:
            return str(status.get("detail") or status["problem"])


def _also(status: AuditStatus) -> str:
    detail = status.get("detail")  # a status stored on the mark before `detail` existed has none
    return f" ({detail})" if detail else ""


def _latest_holding(public: Ed25519PublicKey) -> AuditCheckpoint | None:
    """The newest checkpoint under this key with a good signature."""
    for row in AuditCheckpoint.objects.filter(key_id=key_id(public)).order_by("-event_id"):
        cp = Signed.of(row)
        if signature_valid(public, cp.message(), cp.signature):
            return row
    return None


def _refuse_unsound() -> None:
    """Sign only over a chain that holds, walked whole: a checkpoint then vouches for every
    event up to it as it was when signed, so a later walk may start after it."""
    status = verify_audit()
    if not status["valid"]:
        raise Conflict(
            f"the audit chain does not verify ({status['problem']}): {describe(status)} "
            "No checkpoint is signed over it.",
            code="chain_broken",
        )


@transaction.atomic
def checkpoint_create(*, now: datetime | None = None) -> tuple[AuditCheckpoint | None, bool]:
    """Sign the chain's head: (checkpoint, created). The head already signed answers that
    checkpoint (created False); an empty chain (None, False). Raises DomainError without a
    key, Conflict over a broken chain."""
    private = signing_key()
    if private is None:
        raise DomainError(
            "No audit signing key is configured: set AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE.",
            code="no_signing_key",
        )
    public = private.public_key()
    head = AuditEvent.objects.order_by("-id").values_list("id", "hash").first()
    if head is None:
        return None, False
    latest = _latest_holding(public)
    if latest is not None and (latest.event_id, latest.event_hash) == head:
        return latest, False
    _refuse_unsound()
    signed_at = now or timezone.now()
    fields = {"event_id": head[0], "event_hash": head[1], "signed_at": signed_at, "key_id": key_id(public)}
    signature = sign(private, checkpoint_message(head[0], head[1], signed_at))
    try:
        with transaction.atomic():
            row = AuditCheckpoint.objects.create(**fields, signature=signature)
    except IntegrityError:  # a concurrent run signed the same head
        return AuditCheckpoint.objects.get(key_id=fields["key_id"], event_id=head[0]), False
    log.info("audit: checkpoint #%s signed event #%s (key %s)", row.pk, row.event_id, row.key_id)
    signed = Signed.of(row)
    checkpoint_signed.send(sender=AuditCheckpoint, checkpoint=signed.as_dict())
    transaction.on_commit(lambda: head_export(signed))
    return row, True


def checkpoints_export() -> dict[str, Any]:
    """Every checkpoint and the public key, for keeping outside the database and for
    verification offline (docs/audit-checkpoints.md)."""
    public = verifying_key()
    return {
        "format": EXPORT_FORMAT,
        "algorithm": "Ed25519",
        "message": f"{MESSAGE_PREFIX}:<event_id>:<event_hash>:<signed_at>",
        "public_keys": {key_id(public): public_pem(public)} if public is not None else {},
        "checkpoints": [Signed.of(row).as_dict() for row in AuditCheckpoint.objects.all()],
    }


def checkpoints_from_export(data: Any) -> list[Signed]:
    """The entries of an exported file; ValueError naming what is wrong with it."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not a {EXPORT_FORMAT} file")
    out = []
    for i, entry in enumerate(data.get("checkpoints") or []):
        try:
            signed_at = parse_datetime(str(entry["signed_at"]))
            if signed_at is None:
                raise ValueError("signed_at is not a time")
            out.append(
                Signed(
                    None,
                    int(entry["event_id"]),
                    str(entry["event_hash"]),
                    signed_at,
                    str(entry["key_id"]),
                    str(entry["signature"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"checkpoints[{i}]: {exc}") from None
    return out
