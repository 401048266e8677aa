"""From an OpenID Connect provider's groups to a SpecPact role and route scope: pure
functions, no Django.

The mapping is the JSON setting OIDC_ROLE_MAPPING (docs/sso.md), e.g.

    {"groups": {"ml-platform-admins": {"role": "admin"},
                "chat-team": {"role": "operator", "routes": ["support-chat"]}}}

A user in several mapped groups gets the highest of their roles, over the routes of the
groups that give that role: their union, or every route when one of those groups names
no `routes`. Routes of groups that give a lower role are not added: a user who is an
operator of one route and a viewer of another gets operator over the first only, never
operator over both (SpecPact's role is one per user, not one per route), so a mapping
errs towards less. A user in no mapped group gets DEFAULT_ROLE (viewer) over every route,
as a local user without a role row. All of it is worked out again at every sign-in, so a
user taken out of a group loses what that group gave them at their next sign-in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accounts_app.roles import ROLE_ORDER, role_rank
from contracts_app.document.schema import ROUTE_HELP, ROUTE_PATTERN

DEFAULT_ROLE = "viewer"


class MappingError(ValueError):
    """The mapping setting is malformed; the message names the JSON path and the reason."""


# More route names than one group could sensibly hold: a typo'd or generated setting.
MAX_ROUTES = 500


@dataclass(frozen=True)
class Access:
    role: str
    routes: tuple[str, ...]  # sorted slugs; () is every route


@dataclass(frozen=True)
class RoleMapping:
    groups: Mapping[str, str]  # group name -> role
    routes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # group -> slugs; absent: every route

    def role_for(self, groups: Iterable[str]) -> str:
        """The highest role any of `groups` maps to; DEFAULT_ROLE when none is mapped."""
        return self.access_for(groups).role

    def access_for(self, groups: Iterable[str]) -> Access:
        """The role and the routes `groups` give (the module's docstring has the rule)."""
        mapped = [g for g in set(groups) if g in self.groups]
        if not mapped:
            return Access(DEFAULT_ROLE, ())
        role = max((self.groups[g] for g in mapped), key=role_rank)
        giving = [g for g in mapped if self.groups[g] == role]
        if any(g not in self.routes for g in giving):
            return Access(role, ())
        return Access(role, tuple(sorted({slug for g in giving for slug in self.routes[g]})))


def parse_mapping(raw: str | Mapping[str, Any] | None) -> RoleMapping:
    """Read OIDC_ROLE_MAPPING (JSON text or an already-parsed dict); MappingError when bad."""
    if raw is None or raw == "":
        return RoleMapping(groups={})
    if isinstance(raw, str):
        try:
            data: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise MappingError(f"OIDC_ROLE_MAPPING is not JSON: {exc}") from None
    else:
        data = raw
    if not isinstance(data, dict):
        raise MappingError("OIDC_ROLE_MAPPING: must be an object with a 'groups' key")
    unknown = set(data) - {"groups"}
    if unknown:
        raise MappingError(f"OIDC_ROLE_MAPPING: unknown keys {sorted(unknown)}; only 'groups'")
    groups = data.get("groups", {})
    if not isinstance(groups, dict):
        raise MappingError("OIDC_ROLE_MAPPING.groups: must be an object of group name -> {role}")
    result: dict[str, str] = {}
    scoped: dict[str, tuple[str, ...]] = {}
    for name, entry in groups.items():
        path = f"OIDC_ROLE_MAPPING.groups.{name}"
        if not isinstance(entry, dict):
            raise MappingError(f'{path}: must be an object like {{"role": "operator"}}')
        extra = set(entry) - {"role", "routes"}
        if extra:
            raise MappingError(f"{path}: unknown keys {sorted(extra)}; only 'role' and 'routes'")
        role = entry.get("role")
        if role not in ROLE_ORDER:
            raise MappingError(f"{path}.role: {role!r} is not one of {', '.join(ROLE_ORDER)}")
        result[str(name)] = str(role)
        if "routes" in entry:
            scoped[str(name)] = _routes(entry["routes"], f"{path}.routes")
    return RoleMapping(groups=result, routes=scoped)


def _routes(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        # An empty list would read as "every route" elsewhere (a token's scope): refused,
        # so that a list emptied by mistake never widens a group to all routes.
        raise MappingError(f"{path}: must be a non-empty list of route slugs; leave it out for every route")
    if len(value) > MAX_ROUTES:
        raise MappingError(f"{path}: {len(value)} routes; at most {MAX_ROUTES}")
    for i, slug in enumerate(value):
        if not isinstance(slug, str) or not re.fullmatch(ROUTE_PATTERN, slug):
            raise MappingError(f"{path}[{i}]: {slug!r} is not a route slug ({ROUTE_HELP})")
    return tuple(sorted(set(value)))


def groups_from_claims(claims: Mapping[str, Any], claim: str) -> list[str]:
    """The provider's groups claim as a list of names: a list of strings, or one string.
    Anything else counts as no groups (so the default role), never as an error page."""
    value = claims.get(claim)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []
