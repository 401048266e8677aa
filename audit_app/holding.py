"""Holding the chain to signed checkpoints: whose signature a checkpoint carries, whether
the event it names still has the hash it signed, and whether the database still holds
every head exported off it.

A checkpoint row is written by whoever can write the database, so nothing in it is
trusted but its signature, checked against the keys the settings name (the signing key's
public half and AUDIT_VERIFY_KEYS, audit_app/signing.py): its `key_id` picks no key and
exempts nothing. A checkpoint that verifies under none of them (blank, planted, altered,
or relabelled) is a break, not a row to skip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signing import checkpoint_message, key_id, signature_valid


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

    def named(self) -> str:
        which = f"checkpoint #{self.id}" if self.id is not None else "an exported checkpoint"
        return f"{which} (event #{self.event_id}, signed at {self.signed_at.astimezone(UTC).isoformat()})"


@dataclass(frozen=True)
class Finding:
    """One break: its kind (AuditStatus.problem), the first event it makes unsound (None
    when no event is: a forged or missing checkpoint), the checkpoint it is about, and why."""

    problem: str
    first_broken: int | None = None
    culprit: Signed | None = None
    detail: str | None = None


@dataclass
class Held:
    matched: list[Signed] = field(
        default_factory=list
    )  # verified checkpoints whose event still has the signed hash
    finding: Finding | None = None


def signature_problem(cp: Signed, keys: Sequence[Ed25519PublicKey]) -> str | None:
    """Why `cp` is not a checkpoint signed by one of `keys`, or None. Every key is tried:
    the row's own key id is only compared with the one that verified it."""
    if not cp.signature.strip():
        return "it has no signature"
    if not keys:
        return "no key to verify it is configured (AUDIT_SIGNING_KEY, AUDIT_VERIFY_KEYS)"
    message = cp.message()
    for key in keys:
        if signature_valid(key, message, cp.signature):
            kid = key_id(key)
            if cp.key_id != kid:
                return f"key {kid} signed it but the row names key {cp.key_id!r}: the row was altered"
            return None
    tried = ", ".join(key_id(k) for k in keys)
    return (
        f"its signature verifies under none of the configured keys ({tried}); the row names key "
        f"{cp.key_id!r}: forged, altered, or signed by a key rotated away and not listed in "
        "AUDIT_VERIFY_KEYS"
    )


def hold_checkpoints(checkpoints: Iterable[Signed], keys: Sequence[Ed25519PublicKey], head_id: int) -> Held:
    """Each checkpoint's signature against the configured keys, then, in event order, the
    verified ones against the chain: the first that names an event past the head
    (`truncated`) or one whose hash changed (`rewritten`) is the finding; failing that, the
    first whose signature does not verify (`forged_checkpoint`)."""
    trusted: list[Signed] = []
    forged: Finding | None = None
    for cp in sorted(checkpoints, key=lambda c: (c.event_id, c.signed_at)):
        why = signature_problem(cp, keys)
        if why is None:
            trusted.append(cp)
        elif forged is None:
            forged = Finding("forged_checkpoint", None, cp, f"{cp.named()}: {why}")
    hashes = dict(AuditEvent.objects.filter(id__in={c.event_id for c in trusted}).values_list("id", "hash"))
    held = Held()
    for cp in trusted:
        if cp.event_id > head_id:
            held.finding = Finding("truncated", head_id + 1, cp)
            return held
        if hashes.get(cp.event_id) != cp.event_hash:
            held.finding = Finding("rewritten", cp.event_id, cp)
            return held
        held.matched.append(cp)
    held.finding = forged
    return held


def _difference(exported: Signed, row: Signed | None) -> str:
    if row is None:
        return "which the database no longer holds"
    changed = [
        name
        for name in ("event_id", "event_hash", "signed_at", "key_id", "signature")
        if getattr(exported, name) != getattr(row, name)
    ]
    return f"which the database holds with another {', '.join(changed)}"


def hold_export(
    exported: Sequence[Signed], rows: Iterable[Signed], keys: Sequence[Ed25519PublicKey], head_id: int
) -> Finding | None:
    """The heads exported off the database (audit_app/heads.py) against its checkpoint
    rows: each must still be there as it was written. One that is gone or changed is held
    against the chain itself first (a deleted tail with its checkpoints is `truncated`, a
    rewrite `rewritten`), else it is `checkpoint_missing`. Rows the export lacks are not a
    break: they may predate the export's setting."""
    by_id = {r.id: r for r in rows}
    gone = [
        (n, e)
        for n, e in enumerate(exported, 1)
        if (found := by_id.get(e.id)) is None
        or (found.event_id, found.event_hash, found.signed_at, found.key_id, found.signature)
        != (e.event_id, e.event_hash, e.signed_at, e.key_id, e.signature)
    ]
    if not gone:
        return None
    against_chain = hold_checkpoints([e for _, e in gone], keys, head_id).finding
    if against_chain is not None and against_chain.problem in ("truncated", "rewritten"):
        return Finding(
            against_chain.problem,
            against_chain.first_broken,
            against_chain.culprit,
            "found by the head export: the database's own checkpoint for it is gone or altered",
        )
    n, first = gone[0]
    return Finding(
        "checkpoint_missing",
        None,
        first,
        f"the head export's line {n} is {first.named()}, {_difference(first, by_id.get(first.id))}: "
        f"checkpoint rows were deleted or altered outside SpecPact ({len(gone)} of "
        f"{len(exported)} exported heads differ)",
    )
