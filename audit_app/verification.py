"""The chain's status for the audit page and `GET audit/verify`, without re-hashing the
whole chain on every load.

The full walk (`checkpoints.verify_audit`) hashes every event: 3.6 s of CPU at 100,000
events (issue 16), on every load. Here a load hashes only the events after the stored
mark (audit_app/marks.py: the last event a walk found sound), checks that the mark's own
event still has the hash the walk saw, and holds the chain to the signed checkpoints
newer than the mark plus the newest one (a rewrite with every later hash recomputed
changes the head's hash, so the newest checkpoint's event catches a rewrite anywhere
before it; a deleted tail leaves it naming an event past the head). What that does not
see, an edit before the mark that leaves later hashes alone, is the full walk's to catch:
beat repeats it (AUDIT_FULL_VERIFY_INTERVAL_S), `?full=true` and `manage.py verify_audit`
run it on demand, and a failed full walk is the answer until a full walk holds again.
"""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from audit_app.chain import hash_of, verify_chain
from audit_app.checkpoints import (
    AuditStatus,
    ChainChecked,
    Signed,
    compose_status,
    export_finding,
    hold_checkpoints,
    verify_audit,
)
from audit_app.evidence import Evidence
from audit_app.marks import mark_advance, mark_get
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signing import verifying_keys


def audit_status(*, full: bool = False) -> AuditStatus:
    """The chain's status: the events after the mark walked now, those before it by the
    last full walk. `full` (or no full walk yet, or a mark the chain no longer matches)
    walks the whole chain."""
    mark = mark_get()
    if full or mark is None or mark.full_status is None:
        return verify_audit()
    if not mark.full_status["valid"]:
        return cast(AuditStatus, mark.full_status)  # broken stays broken until a full walk holds
    head = AuditEvent.objects.order_by("-id").values_list("id", "hash").first()
    head_id = head[0] if head else 0
    if mark.through_id:
        # The mark's own event, rehashed: an edit of it, or a rewrite before it with the
        # later hashes recomputed (which reaches the mark), or a deleted tail, makes this
        # load walk everything to name where.
        seen = AuditEvent.objects.filter(id=mark.through_id).first()
        if seen is None or seen.hash != mark.through_hash or hash_of(seen) != seen.hash:
            return verify_audit()
    after = (mark.through_id, mark.through_hash) if mark.through_id else None
    evidence = Evidence()  # the gates walked now: those before the mark are the full walk's
    chain = verify_chain(after=after, through=head_id, visit=evidence.visit)
    keys = verifying_keys()
    rows = _checkpoints_to_hold(mark.checkpoints_through)
    held = hold_checkpoints([Signed.of(r) for r in rows], keys, head_id)
    now = timezone.now()
    checked: ChainChecked = {
        "scope": "since_mark",
        "at": now.isoformat(),
        "walked_from": mark.through_id + 1,
        "walked": chain["events"],
        "full_at": mark.full_at.isoformat() if mark.full_at else None,
        "full_through": mark.full_through_id,
    }
    status = compose_status(
        events=mark.through_id + chain["events"],
        walk_broken=chain["first_broken"],
        held=held,
        checked=checked,
        more=[
            # Every exported head against every row: one query of a few columns a checkpoint
            # (hourly: 8,760 a year); their signatures were checked when first held.
            export_finding(None, _all_checkpoints(), keys, head_id),
            evidence.finding(),
        ],
    )
    newest = max((r.pk for r in rows), default=mark.checkpoints_through)
    moved = head_id > mark.through_id or newest > mark.checkpoints_through
    if status["valid"] and head is not None and moved:  # nothing new: the UPDATE would match no row
        mark_advance(from_id=mark.through_id, through=head, checkpoints_through=newest, at=now)
    return status


def _checkpoints_to_hold(verified_through: int) -> list[AuditCheckpoint]:
    """Those newer than the mark (their signatures not yet checked) and the newest by
    event, whatever key id it names (the keys it is held to are the settings'); one query."""
    newest = AuditCheckpoint.objects.order_by("-event_id", "-id").values("pk")[:1]
    return list(AuditCheckpoint.objects.filter(Q(pk__gt=verified_through) | Q(pk__in=newest)).order_by("id"))


def _all_checkpoints() -> list[Signed]:
    if not settings.AUDIT_HEAD_EXPORT_FILE:
        return []  # nothing to hold them to: no query
    return [Signed.of(r) for r in AuditCheckpoint.objects.all()]
