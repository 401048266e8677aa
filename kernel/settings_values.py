"""Checks of a setting's value that both the settings module (at start-up, from the
environment) and the code using the setting (a value set in code, e.g. a test's
override) apply: one rule, in one place."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured


def at_least(name: str, value: int, minimum: int | None) -> int:
    """`value`, or ImproperlyConfigured naming the setting when it is under `minimum`."""
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value!r} must be at least {minimum}")
    return value
