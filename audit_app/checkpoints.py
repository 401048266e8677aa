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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from audit_app.chain import verify_chain
from audit_app.marks import mark_record_full
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signals import chain_failed
from audit_app.signing import (
    MESSAGE_PREFIX,
    checkpoint_message,
    key_id,
    public_pem,
    sign,
    signature_valid,
    signing_key,
    verifying_key,
)
from kernel.errors import Conflict, DomainError

log = logging.getLogger("specpact.audit")

EXPORT_FORMAT = "specpact-audit-checkpoints/v1"


@dataclass(frozen=True)
class Signed:
    """A checkpoint as the checks see it: a row, or an entry of an exported file."""

    id: int | None
    event_id: int
    event_hash: str
    signed_at: datetime
    key_id: str
    signature: str

    @classmethod
    def of(cls, row: AuditCheckpoint) -> Signed:
        return cls(row.pk, row.event_id, row.event_hash, row.signed_at, row.key_id, row.signature)

    def message(self) -> bytes:
        return checkpoint_message(self.event_id, self.event_hash, self.signed_at)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "event_id": self.event_id,
            "event_hash": self.event_hash,
            "signed_at": self.signed_at.astimezone(UTC).isoformat(),  # as in the message
            "key_id": self.key_id,
            "signature": self.signature,
            "message": self.message().decode(),
        }


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
    a checkpoint signed), `truncated` (a checkpoint names an event past the head), or
    `forged_checkpoint` (a checkpoint under this key whose signature does not verify).
    checkpoint: the one that caught it, else the latest that still holds. intact_through:
    the last event a checkpoint still vouches for before anything broken. checked: what
    was hashed for this answer, and when the whole chain last was."""

    valid: bool
    events: int
    first_broken: int | None
    problem: str | None
    checkpoint: dict[str, Any] | None
    intact_through: int | None
    checked: ChainChecked


@dataclass
class Held:
    matched: list[Signed]  # trusted checkpoints whose event still has the signed hash, in order
    problem: str | None = None
    first_broken: int | None = None
    culprit: Signed | None = None


def hold_checkpoints(checkpoints: Iterable[Signed], public: Ed25519PublicKey | None, head_id: int) -> Held:
    """Checkpoints under another key are not trusted (rotated away, or planted): skipped."""
    kid = key_id(public) if public is not None else None
    trusted: list[Signed] = []
    forged: Signed | None = None
    for cp in sorted(checkpoints, key=lambda c: (c.event_id, c.signed_at)):
        if public is None or cp.key_id != kid:
            continue
        if signature_valid(public, cp.message(), cp.signature):
            trusted.append(cp)
        elif forged is None:
            forged = cp
    hashes = dict(AuditEvent.objects.filter(id__in={c.event_id for c in trusted}).values_list("id", "hash"))
    held = Held(matched=[])
    for cp in trusted:
        if cp.event_id > head_id:
            held.problem, held.first_broken, held.culprit = "truncated", head_id + 1, cp
            return held
        if hashes.get(cp.event_id) != cp.event_hash:
            held.problem, held.first_broken, held.culprit = "rewritten", cp.event_id, cp
            return held
        held.matched.append(cp)
    if forged is not None:
        held.problem, held.culprit = "forged_checkpoint", forged
    return held


def compose_status(*, events: int, walk_broken: int | None, held: Held, checked: ChainChecked) -> AuditStatus:
    """The walk's first broken link and the checkpoints' findings as one answer: whichever
    break comes first is the one named."""
    problem, first_broken, culprit = held.problem, held.first_broken, held.culprit
    if walk_broken is not None and (first_broken is None or walk_broken <= first_broken):
        problem, first_broken, culprit = "broken_link", walk_broken, None
    vouched = [c for c in held.matched if first_broken is None or c.event_id < first_broken]
    shown = culprit or (vouched[-1] if vouched else None)
    status: AuditStatus = {
        "valid": problem is None,
        "events": events,
        "first_broken": first_broken,
        "problem": problem,
        "checkpoint": shown.as_dict() if shown else None,
        "intact_through": vouched[-1].event_id if vouched else None,
        "checked": checked,
    }
    if problem is not None:
        chain_failed.send(sender=AuditEvent, status=dict(status))
    return status


def verify_audit(*, extra: Sequence[Signed] = (), public: Ed25519PublicKey | None = None) -> AuditStatus:
    """The full walk, then every checkpoint (the stored ones and `extra`, e.g. from an
    exported file) checked against the chain. `public` defaults to the signing key's.
    The server's own view (no `extra`, its own key) is recorded on the mark
    (audit_app/marks.py), which later loads walk on from."""
    head = AuditEvent.objects.order_by("-id").values_list("id", "hash").first()
    head_id = head[0] if head else 0
    chain = verify_chain(through=head_id)
    rows = list(AuditCheckpoint.objects.all())
    held = hold_checkpoints([*map(Signed.of, rows), *extra], public or verifying_key(), head_id)
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
        events=chain["events"], walk_broken=chain["first_broken"], held=held, checked=checked
    )
    if not extra and public is None:
        mark_record_full(
            status=dict(status),
            through=head,
            checkpoints_through=max((r.pk for r in rows), default=0),
            at=now,
        )
    return status


def describe(status: AuditStatus) -> str:
    """The status in words, for the command and the audit page."""
    cp = status["checkpoint"]
    which = (f"checkpoint #{cp['id']}" if cp["id"] else "an exported checkpoint") if cp else ""
    signed = f"{which} signed event #{cp['event_id']} at {cp['signed_at']}" if cp else ""
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
                f"#{status['first_broken']}{after} and the later hashes recomputed."
            )
        case "truncated":
            gone = int(status["first_broken"] or 0)
            return f"{signed}, but the chain ends at #{gone - 1}: the events from #{gone} on were deleted."
        case _:
            return f"{signed}, but its signature does not verify: the checkpoint was forged or altered."


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
