"""The acceptance watch: windowed acceptance from counter deltas, held against what the
approving benchmark measured, and an alert when the contract's `acceptance_drop` trigger
holds for its windows. The alert is announced (`live_app.signals.acceptance_dropped`,
after commit); releases_app answers it by proposing the rollback release and recording it
on the alert. Nothing here approves or activates: the proposal needs an approver."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts_app.models import UserRole
from audit_app.actors import Actor
from audit_app.services import audit_record
from contracts_app.models import ContractVersion
from live_app.conformance import Counters
from live_app.models import AcceptanceAlert, AcceptanceSample, Endpoint
from live_app.selectors import acceptance_floor, acceptance_trigger, benchmark_acceptance, engine_switch_off
from live_app.signals import announce_acceptance_dropped
from worker.harness.acceptance.deltas import Restarted, counter_deltas

WATCH_USERNAME = "specpact-watch"


def watch_actor() -> Actor:
    """The watch proposes as its own user (a release names a proposer; four eyes then let
    any approver decide it). It has no usable password: nobody signs in as it."""
    user, created = get_user_model().objects.get_or_create(
        username=WATCH_USERNAME, defaults={"is_active": True}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    UserRole.objects.get_or_create(user=user, defaults={"role": "operator"})
    return Actor(label="system:acceptance-watch", user=user)


def _window(previous: AcceptanceSample | None, counters: Counters) -> dict[str, Any]:
    """Deltas since the previous sample; a counter lower than before is an engine restart,
    which starts a new series with no window."""
    out: dict[str, Any] = {"reset": False}
    if previous is None or previous.draft_tokens is None or counters.draft_tokens is None:
        return out
    got = counter_deltas(
        {"drafted": previous.draft_tokens, "accepted": previous.accepted_tokens},
        {"drafted": counters.draft_tokens, "accepted": counters.accepted_tokens},
    )
    if isinstance(got, Restarted):
        out["reset"] = True
        return out
    drafted, accepted = got["drafted"], got["accepted"]
    out["window_draft_tokens"] = drafted
    if previous.generated_tokens is not None and counters.generated_tokens is not None:
        generated = counters.generated_tokens - previous.generated_tokens
        # Serving without drafting: the engine switched speculation off (it says so only this way).
        out["engine_off"] = drafted == 0 and generated > 0
    if drafted > 0:
        out["window_acceptance_rate"] = accepted / drafted
        if counters.drafts is not None and previous.drafts is not None and counters.drafts > previous.drafts:
            out["window_mean_acceptance_length"] = 1 + accepted / (counters.drafts - previous.drafts)
    return out


def acceptance_record(
    *, endpoint: Endpoint, counters: Counters, version: ContractVersion, at: datetime
) -> AcceptanceSample:
    """Store one sample and its window; raise the alert when the floor held for its windows."""
    with transaction.atomic():
        previous = AcceptanceSample.objects.filter(endpoint=endpoint).order_by("-taken_at", "-id").first()
        window = _window(previous, counters)
        trigger = acceptance_trigger(version)
        reference = benchmark_acceptance(version)
        rate = window.get("window_acceptance_rate")
        floor = acceptance_floor(version, reference)
        sample = AcceptanceSample.objects.create(
            endpoint=endpoint,
            taken_at=at,
            source=counters.source[:100],
            draft_tokens=counters.draft_tokens,
            accepted_tokens=counters.accepted_tokens,
            drafts=counters.drafts,
            reset=window["reset"],
            window_draft_tokens=window.get("window_draft_tokens"),
            window_acceptance_rate=rate,
            window_mean_acceptance_length=window.get("window_mean_acceptance_length"),
            below_floor=floor is not None and rate is not None and rate < floor,
            generated_tokens=counters.generated_tokens,
            engine_off=bool(window.get("engine_off")),
        )
        if sample.engine_off and not (previous and previous.engine_off):
            _record_engine_off(endpoint, version, at)
    if trigger and reference and floor is not None and sample.below_floor:
        _maybe_alert(endpoint, version, trigger, reference, at)
    return sample


def _record_engine_off(endpoint: Endpoint, version: ContractVersion, at: datetime) -> None:
    """Speculation switched off by the engine: said once, when it starts. Not an acceptance
    drop (nothing drafted, nothing to compare) and no rollback proposal: the route now runs
    plain decoding, which the contract's rollback target would also give."""
    cutoff = engine_switch_off(version)
    batching = (version.document.get("compatibility") or {}).get("batching") or {}
    if cutoff:
        why = (
            f"as the contract allows: its acceptance_cutoff switches speculation off for good once the "
            f"engine's rolling acceptance over {cutoff.get('window')} iterations falls below "
            f"{cutoff.get('min_rate')}; the route runs without speculation until the engine restarts"
        )
    else:
        why = "the contract names no engine switch-off: check the engine's configuration against the render"
    if batching.get("speculation_off_above_batch_size") or (
        (version.document.get("speculation") or {}).get("params") or {}
    ).get("token_schedule"):
        why += "; or every batch in the window was above the contract's batch cut-off"
    reason = (
        f"Speculation switched off by the engine on {endpoint.route.slug}/{endpoint.name} "
        f"(version {version.number}): tokens were generated but none drafted, {why}."
    )
    audit_record(
        actor=watch_actor(),
        action="acceptance.engine_switched_off",
        obj_type="endpoint",
        obj_id=endpoint.pk,
        route=endpoint.route,
        after={"name": endpoint.name, "version": version.number, "at": at.isoformat(), "cutoff": cutoff},
        reason=reason,
    )


def _maybe_alert(
    endpoint: Endpoint, version: ContractVersion, trigger: dict[str, Any], reference: float, at: datetime
) -> None:
    windows = int(trigger.get("windows", 3))
    # Windows with traffic only: an idle window says nothing either way.
    recent = list(
        AcceptanceSample.objects.filter(endpoint=endpoint, window_acceptance_rate__isnull=False)
        .order_by("-taken_at", "-id")
        .values_list("below_floor", "window_acceptance_rate")[:windows]
    )
    if len(recent) < windows or not all(below for below, _ in recent):
        return
    if AcceptanceAlert.objects.filter(endpoint=endpoint, version=version).exists():
        return  # one alert per endpoint and version: the first one is still being decided
    live = sum(rate or 0.0 for _, rate in recent) / len(recent)
    alert_raise(endpoint=endpoint, version=version, trigger=trigger, reference=reference, live=live, at=at)


def alert_raise(
    *,
    endpoint: Endpoint,
    version: ContractVersion,
    trigger: dict[str, Any],
    reference: float,
    live: float,
    at: datetime | None = None,
) -> AcceptanceAlert:
    """Record the alert (by the watch's system actor) and announce the drop after commit:
    releases_app proposes the rollback release and links it here (`alert.release`,
    state `proposed`), or says on the alert why it proposed none (`not_proposed`)."""
    actor = watch_actor()
    route = endpoint.route
    min_ratio, windows = float(trigger["min_ratio"]), int(trigger.get("windows", 3))
    reason = (
        f"Live acceptance on {route.slug}/{endpoint.name} was {live:.3f} over the last {windows} windows, "
        f"below {min_ratio:g} × the benchmarked {reference:.3f} for version {version.number}."
    )
    with transaction.atomic():
        alert = AcceptanceAlert.objects.create(
            endpoint=endpoint,
            version=version,
            live_rate=live,
            benchmark_rate=reference,
            min_ratio=min_ratio,
            windows=windows,
            reason=reason,
            raised_at=at or timezone.now(),
        )
        audit_record(
            actor=actor,
            action="acceptance.alert_raised",
            obj_type="endpoint",
            obj_id=endpoint.pk,
            route=route,
            after={
                "alert": alert.pk,
                "name": endpoint.name,
                "version": version.number,
                "live_rate": live,
                "benchmark_rate": reference,
                "min_ratio": min_ratio,
                "windows": windows,
            },
            reason=reason,
        )
        announce_acceptance_dropped(alert=alert)
    return alert
