"""Beat's schedule sent once however many beat processes run (issue 26, point 3).

Celery has no guard of its own against a second `celery beat`: each sends every entry, so
two beats (a standby on another host, or one started by mistake) double every periodic
task. `SingleBeatScheduler` (settings' CELERY_BEAT_SCHEDULER) sends only while it holds
the `BeatLease` row: taken with a conditional UPDATE when it is free or has run out, renewed
every third of BEAT_LEASE_S, handed back at shutdown. The other beats tick idly, trying to
take it, and one of them does within a lease of the holder dying (kill -9 included: its
lease simply runs out). Times are the database's (`now()`), so the hosts' clocks never
meet. A beat that can't reach the database sends nothing: it can't know it still holds it.

A holder frozen (SIGSTOP, a VM paused) longer than its lease may send the entry it was
about to send after another has taken over: every scheduled task is safe to overlap itself
(settings' CELERY_BEAT_SCHEDULE), so that costs one extra tick, never a wrong result.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.db.models import DateTimeField, ExpressionWrapper, Q
from django.db.models.functions import Now

from kernel.models import BeatLease

log = logging.getLogger("specpact.beat")

LEASE_NAME = "celery-beat"
_NEVER = datetime(1970, 1, 1, tzinfo=UTC)


def beat_lease_hold(*, holder: str, lease_s: int, name: str = LEASE_NAME) -> bool:
    """Take the lease (free, or run out) or renew it (`holder`'s own): True when `holder`
    holds it for `lease_s` seconds from now, False when another beat does."""
    until = ExpressionWrapper(Now() + timedelta(seconds=lease_s), output_field=DateTimeField())
    mine_or_free = Q(holder=holder) | Q(expires_at__lte=Now())
    for _ in range(2):
        taken = BeatLease.objects.filter(mine_or_free, name=name).update(
            holder=holder, expires_at=until, renewed_at=Now()
        )
        if taken:
            return True
        # No row yet (a fresh database): made free, then taken by whoever updates first.
        _, created = BeatLease.objects.get_or_create(name=name, defaults={"expires_at": _NEVER})
        if not created:
            return False
    return False


def beat_lease_release(*, holder: str, name: str = LEASE_NAME) -> None:
    """Hand the lease back (a beat shutting down): a standby takes it at its next try
    instead of waiting for it to run out."""
    BeatLease.objects.filter(name=name, holder=holder).update(expires_at=Now())


def beat_lease_holder(name: str = LEASE_NAME) -> str | None:
    """Who holds the lease now, or None (nobody, or it has run out)."""
    row = BeatLease.objects.filter(name=name, expires_at__gt=Now()).values_list("holder", flat=True).first()
    return row or None


class SingleBeatScheduler(PersistentScheduler):
    """Celery's persistent scheduler (its `--schedule` file keeps each entry's last run),
    sending only while this process holds the beat lease."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Unique per process start: a restarted beat on the same host is another holder.
        self.lease_holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._holding = False
        self._renew_at = 0.0
        super().__init__(*args, **kwargs)

    @property
    def lease_s(self) -> int:
        return int(settings.BEAT_LEASE_S)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        # A third of the lease: renewed twice before it can run out, tried as often when not held.
        every = self.lease_s / 3
        if not self._hold():
            return every
        return float(min(super().tick(*args, **kwargs), every))

    def _hold(self) -> bool:
        now = time.monotonic()
        if self._holding and now < self._renew_at:
            return True
        try:
            close_old_connections()  # CONN_MAX_AGE and the health check, as a request would
            held = beat_lease_hold(holder=self.lease_holder, lease_s=self.lease_s)
        except DatabaseError:
            log.warning("beat: the database is unreachable; sending nothing until it is back", exc_info=True)
            with contextlib.suppress(DatabaseError):
                connection.close()
            held = False
        if held and not self._holding:
            log.info("beat: %s holds the schedule's lease; sending the schedule", self.lease_holder)
        elif self._holding and not held:
            log.warning("beat: %s lost the schedule's lease; standing by", self.lease_holder)
        elif not held and self._renew_at == 0.0:
            log.info("beat: %s standing by (another beat holds the schedule's lease)", self.lease_holder)
        self._holding = held
        self._renew_at = now + self.lease_s / 3
        return held

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._holding:
                self._holding = False
                try:
                    beat_lease_release(holder=self.lease_holder)
                except DatabaseError:  # it runs out by itself
                    log.warning("beat: could not hand the lease back", exc_info=True)
