"""The four roles, in order: each includes everything the ones below it may do."""

from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    VIEWER = "viewer", "viewer (read)"
    OPERATOR = "operator", "operator (propose, benchmark)"
    APPROVER = "approver", "approver (approve, reject, roll back)"
    ADMIN = "admin", "admin"


ROLE_ORDER: dict[str, int] = {Role.VIEWER: 1, Role.OPERATOR: 2, Role.APPROVER: 3, Role.ADMIN: 4}


def role_rank(role: str | None) -> int:
    return ROLE_ORDER.get(role or "", 0)


def check_role_name(role: str) -> str:
    if role not in ROLE_ORDER:
        raise ValueError(f"unknown role {role!r}; use one of {', '.join(ROLE_ORDER)}")
    return role


def lower_role(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return None
    return a if role_rank(a) <= role_rank(b) else b
