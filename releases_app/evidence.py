"""The gate's evidence, checked again by the audit trail's verification: every result a
`release.gate_completed` event judged must still have the digest the event recorded
(`after.judged`, from `ReleaseGateInput.judged`). The chain proves the event unchanged; this
proves the results behind the verdict are the ones it judged. Registered with audit_app in
ReleasesConfig.ready (audit_app/evidence.py); events recorded before `judged` existed
carry none and are skipped. A result whose raw samples the retention setting pruned is held
to the digest taken at upload (`results_digests`): what is left of it can't be hashed again."""

from __future__ import annotations

from collections.abc import Iterable

from audit_app.evidence import register_evidence_check
from audit_app.models import AuditEvent
from benchmarks_app.selectors import results_digests

GATE_COMPLETED = "release.gate_completed"


def judged_results_unchanged(events: Iterable[AuditEvent]) -> tuple[int, str] | None:
    """(event id, why) of the first gate whose judged results changed; one query per gate."""
    for event in events:
        judged = (event.after or {}).get("judged") or []
        if not judged:
            continue
        now = results_digests([int(j["run"]) for j in judged])
        for j in judged:
            found = now.get(int(j["run"]))
            if found == j["digest"]:
                continue
            whose = (
                f"run {j['run']}'s result (lane {j.get('lane')}), judged by release {event.object_id}'s gate,"
            )
            if found is None:
                return event.pk, f"{whose} is gone"
            return (
                event.pk,
                f"{whose} now has digest {found}, not the {j['digest']} it judged: it was swapped",
            )
    return None


def register() -> None:
    register_evidence_check(GATE_COMPLETED, judged_results_unchanged)
