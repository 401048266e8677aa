"""The sign-in form's attempt limit: delays that grow with failures, never a long lockout.

Failed sign-ins are counted for three subjects, each with its own free allowance:

- the name and the address together (`LOGIN_MAX_FAILURES`, 5): someone mistyping, or one
  attacker guessing one name from one place;
- the address across names (`LOGIN_MAX_FAILURES_PER_ADDRESS`, 20): one place trying many
  names;
- the name across addresses (`LOGIN_MAX_FAILURES_PER_NAME`, 100): many places guessing one
  name. This ceiling applies only to addresses that have themselves failed for that name
  (within the window), so an attacker spending it can't keep the user out: a sign-in from
  an address with no failed try for the name is not held back by it.

Once a subject has used its allowance, each further failure makes it wait before the next
try: 1 s, 2 s, 4 s, … doubling per failure up to `LOGIN_DELAY_MAX_S` (60). While it waits
the form answers 429 with `Retry-After` whatever the password (a refused try is not
counted and extends nothing). Counts are forgotten `LOGIN_LOCKOUT_S` (300) after a
subject's latest failure; a successful sign-in forgets that name-and-address count.

The name is keyed as Django's sign-in compares it: the form's `UsernameField` (stripped,
NFKC-normalised; `ModelBackend` then looks it up exactly, case-sensitively), so a
fullwidth `pat` (U+FF50 U+FF41 U+FF54) is `pat`. The address is the API throttles' (`BaseThrottle.get_ident`:
REMOTE_ADDR, or X-Forwarded-For read with REST_FRAMEWORK NUM_PROXIES trusted proxies).
Counts are in Django's `default` cache, shared by every web process. The first delay of
each subject in a window is an audit event (`login.locked_out`)."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.forms import UsernameField
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle

from audit_app.actors import Actor
from audit_app.services import audit_record

_PREFIX = "login-limit"


def _now() -> float:
    return time.time()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def compared_name(raw: str) -> str:
    """The name as the sign-in form hands it to the authentication backend."""
    return str(UsernameField().to_python(raw) or "")


@dataclass(frozen=True)
class _Subject:
    kind: str  # "name_and_address", "address" or "name"
    ident: str  # the cache id
    label: str  # what the audit event names
    free: int  # failures allowed before delays start

    @property
    def failures_key(self) -> str:
        return f"{_PREFIX}:failures:{self.ident}"

    @property
    def until_key(self) -> str:
        return f"{_PREFIX}:until:{self.ident}"


def _subjects(request: HttpRequest, raw_name: str) -> tuple[_Subject, _Subject, _Subject]:
    name = compared_name(raw_name)
    address = str(BaseThrottle().get_ident(request))  # type: ignore[arg-type]  # reads only META
    name_id, address_id = _digest(name), _digest(address)
    name, address = name[:150], address[:150]
    return (
        _Subject("name_and_address", f"pair:{name_id}:{address_id}", name, int(settings.LOGIN_MAX_FAILURES)),
        _Subject("address", f"addr:{address_id}", address, int(settings.LOGIN_MAX_FAILURES_PER_ADDRESS)),
        _Subject("name", f"name:{name_id}", name, int(settings.LOGIN_MAX_FAILURES_PER_NAME)),
    )


def delay_after(failures: int, free: int) -> float:
    """Seconds to wait after the `failures`-th failure of a subject allowed `free`."""
    if failures < free:
        return 0.0
    return float(min(int(settings.LOGIN_DELAY_MAX_S), 2 ** min(failures - free, 32)))


def _waiting(subject: _Subject, now: float) -> float:
    until = cache.get(subject.until_key)
    return max(0.0, float(until) - now) if until is not None else 0.0


def wait_before_try(request: HttpRequest, raw_name: str) -> int | None:
    """Seconds this name from this address must still wait before a try, or None."""
    pair, address, name = _subjects(request, raw_name)
    now = _now()
    waits = [_waiting(pair, now), _waiting(address, now)]
    if cache.get(pair.failures_key):  # the name's ceiling holds back only addresses that failed for it
        waits.append(_waiting(name, now))
    longest = max(waits)
    return max(1, math.ceil(longest)) if longest > 0 else None


def _count(subject: _Subject) -> int:
    window = int(settings.LOGIN_LOCKOUT_S)
    cache.add(subject.failures_key, 0, timeout=window)
    try:
        failures = int(cache.incr(subject.failures_key))
    except ValueError:  # expired between add and incr: this failure starts a new count
        cache.set(subject.failures_key, 1, timeout=window)
        return 1
    cache.touch(subject.failures_key, window)  # remembered from the latest failure
    return failures


def record_failure(request: HttpRequest, raw_name: str) -> int | None:
    """Count one failed sign-in; the seconds to wait before the next try, when it now must."""
    now = _now()
    longest = 0.0
    for subject in _subjects(request, raw_name):
        failures = _count(subject)
        delay = delay_after(failures, subject.free)
        if delay <= 0:
            continue
        # The wait ends at the time stored (read against `_now()`); the entry itself lives as
        # long as the failures' window, so a slow request never lets it lapse early.
        cache.set(
            subject.until_key, now + delay, timeout=max(int(settings.LOGIN_LOCKOUT_S), math.ceil(delay) + 1)
        )
        longest = max(longest, delay)  # this address has just failed for the name: its ceiling holds
        if failures == subject.free:
            audit_record(
                actor=Actor.system("anonymous"),
                action="login.locked_out",
                obj_type="login",
                obj_id=subject.label,
                after={"locked_by": subject.kind, "failures": failures, "seconds": delay},
                reason=f"{failures} failed sign-ins for this {subject.kind.replace('_', ' ')}: "
                f"each further one waits longer, up to {settings.LOGIN_DELAY_MAX_S} s",
            )
    return max(1, math.ceil(longest)) if longest > 0 else None


def record_success(request: HttpRequest, raw_name: str) -> None:
    """A right password forgets this name-and-address's failures (not the address's or the
    name's: those count what others tried)."""
    pair = _subjects(request, raw_name)[0]
    cache.delete_many([pair.failures_key, pair.until_key])
