"""Who did something. Every audit event and every decision names an actor: a user (through
the browser or one of their API tokens), a worker, or the system itself (migrations,
management commands, scheduled jobs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser


@dataclass(frozen=True)
class Actor:
    """`user` is None for workers and the system. `token` is the API token the request
    came with (accounts_app.models.ApiToken), so role checks can apply its narrower role
    and route scope."""

    label: str
    user: Any = None
    token: Any = None

    @classmethod
    def system(cls, name: str = "system") -> Actor:
        return cls(label=name)

    @classmethod
    def worker(cls, name: str) -> Actor:
        return cls(label=f"worker:{name}")

    @classmethod
    def for_user(cls, user: AbstractBaseUser, token: Any = None) -> Actor:
        if token is not None:
            return cls(label=f"token:{token.prefix}", user=user, token=token)
        return cls(label=f"user:{user.get_username()}", user=user)


def as_actor(value: Actor | AbstractBaseUser | AnonymousUser | None) -> Actor:
    """Accept what callers naturally have: an Actor, a user, or None for the system."""
    if isinstance(value, Actor):
        return value
    if value is None or isinstance(value, AnonymousUser) or not value.is_authenticated:
        return Actor.system()
    return Actor.for_user(value)


def actor_from_request(request: Any) -> Actor:
    """The acting user of a DRF or Django request; token-authenticated requests keep the
    token so its scope and role travel with the actor."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return Actor.system("anonymous")
    token = getattr(request, "auth", None)
    # Session auth leaves request.auth None; other auth classes may put other things there.
    if token is not None and not hasattr(token, "allows_route"):
        token = None
    return Actor.for_user(user, token)
