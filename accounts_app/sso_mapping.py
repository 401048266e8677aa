"""From an OpenID Connect provider's groups to a SpecPact role: pure functions, no Django.

The mapping is the JSON setting OIDC_ROLE_MAPPING, e.g.

    {"groups": {"ml-platform-admins": {"role": "admin"}, "chat-team": {"role": "operator"}}}

A user in several mapped groups gets the highest of their roles. A user in no mapped group
gets DEFAULT_ROLE (viewer: they can sign in and read, nothing more, as a local user
without a role row). The role is worked out again at every sign-in, so a user taken out
of a group loses what that group gave them at their next sign-in.

Route scopes are refused in the mapping: in SpecPact only API tokens carry a route scope
(accounts_app/models/tokens.py); a signed-in session sees every route its role may, so a
"routes" key would promise a narrowing nothing enforces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accounts_app.roles import ROLE_ORDER, role_rank

DEFAULT_ROLE = "viewer"


class MappingError(ValueError):
    """The mapping setting is malformed; the message names the JSON path and the reason."""


@dataclass(frozen=True)
class RoleMapping:
    groups: Mapping[str, str]  # group name -> role

    def role_for(self, groups: Iterable[str]) -> str:
        """The highest role any of `groups` maps to; DEFAULT_ROLE when none is mapped."""
        best = DEFAULT_ROLE
        for group in groups:
            role = self.groups.get(group)
            if role is not None and role_rank(role) > role_rank(best):
                best = role
        return best


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
    for name, entry in groups.items():
        path = f"OIDC_ROLE_MAPPING.groups.{name}"
        if not isinstance(entry, dict):
            raise MappingError(f'{path}: must be an object like {{"role": "operator"}}')
        if "routes" in entry:
            raise MappingError(
                f"{path}.routes: route scopes apply to API tokens only, not to signed-in users; "
                "remove it (issue the group's pipelines route-scoped tokens instead)"
            )
        extra = set(entry) - {"role"}
        if extra:
            raise MappingError(f"{path}: unknown keys {sorted(extra)}; only 'role'")
        role = entry.get("role")
        if role not in ROLE_ORDER:
            raise MappingError(f"{path}.role: {role!r} is not one of {', '.join(ROLE_ORDER)}")
        result[str(name)] = str(role)
    return RoleMapping(groups=result)


def groups_from_claims(claims: Mapping[str, Any], claim: str) -> list[str]:
    """The provider's groups claim as a list of names: a list of strings, or one string.
    Anything else counts as no groups (so the default role), never as an error page."""
    value = claims.get(claim)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []
