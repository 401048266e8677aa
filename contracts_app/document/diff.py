"""Semantic diff of two contract documents, path by path, each change with its impact
class (DESIGN §2). List items are matched by identity: assets by role, standards by
metric; set-like lists (lanes, modes, load levels) report items added and removed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import ValidationError

from .canonical import drop_implied, list_kind
from .engines.params import effect_of
from .schema import ContractDocument

Impact = Literal["route-identity", "scope", "policy", "cosmetic"]
Kind = Literal["added", "removed", "changed"]

# Highest first: a release's class is the highest of its changes.
IMPACT_ORDER: tuple[Impact, ...] = ("route-identity", "scope", "policy", "cosmetic")

_SECTION_IMPACT: dict[str, Impact] = {
    "apiVersion": "route-identity",
    "verification": "route-identity",
    "route": "route-identity",
    "target": "route-identity",
    "speculation": "route-identity",
    "assets": "route-identity",
    "compatibility": "route-identity",
    "lanes": "scope",
    "measurement": "policy",
    "rollback": "policy",
    "description": "cosmetic",
    "notes": "cosmetic",
}


@dataclass(frozen=True)
class Change:
    path: str
    old: Any
    new: Any
    impact: Impact
    kind: Kind

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def impact_of(path: str) -> Impact:
    knob = _knob_impact(path)
    if knob is not None:
        return knob
    section = path.split(".", 1)[0].split("[", 1)[0]
    # Anything unclassified counts as a route change: the safe side requires a benchmark.
    return _SECTION_IMPACT.get(section, "route-identity")


def _knob_impact(path: str) -> Impact | None:
    """An engine knob (speculation.params.engine.X, speculation.env.X) that only moves the
    draft (devices, kernels, parallelism) is policy; one that changes what is proposed or
    returned changes the route. An unknown name counts as a route change."""
    for prefix, env in (("speculation.params.engine.", False), ("speculation.env.", True)):
        if path.startswith(prefix):
            effect = effect_of(path.removeprefix(prefix), env=env)
            return "policy" if effect == "placement" else "route-identity"
    return None


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    """Defaults filled in, as for the digest, so that spelling out a default is no change.
    A document that does not fit the schema is compared as it is."""
    try:
        return drop_implied(
            ContractDocument.model_validate(document).model_dump(mode="json", exclude_none=True)
        )
    except ValidationError:
        return document


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {}


def diff_documents(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    out: list[Change] = []
    _walk(_comparable(old), _comparable(new), "", out)
    return out


def _emit(out: list[Change], path: str, old: Any, new: Any, kind: Kind) -> None:
    out.append(Change(path=path, old=old, new=new, impact=impact_of(path), kind=kind))


def _walk(old: Any, new: Any, path: str, out: list[Change]) -> None:
    if old == new and type(old) is type(new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            sub = f"{path}.{key}" if path else str(key)
            before, after = old.get(key), new.get(key)
            if _empty(before) and _empty(after):
                continue
            if isinstance(before or after, list) and list_kind(sub)[0] != "plain":
                _walk(before or [], after or [], sub, out)  # item by item, even from or to empty
            elif _holds_knobs(sub, before or after):
                _walk(before or {}, after or {}, sub, out)  # knob by knob: each has its own impact
            elif _empty(before):
                _emit(out, sub, None, after, "added")
            elif _empty(after):
                _emit(out, sub, before, None, "removed")
            else:
                _walk(before, after, sub, out)
        return
    if isinstance(old, list) and isinstance(new, list):
        kind, key = list_kind(path)
        if kind == "set":
            for item in old:
                if item not in new:
                    _emit(out, path, item, None, "removed")
            for item in new:
                if item not in old:
                    _emit(out, path, None, item, "added")
            return
        if kind == "keyed" and key is not None and _all_keyed(old, key) and _all_keyed(new, key):
            before = {item[key]: item for item in old}
            after = {item[key]: item for item in new}
            for ident in [*before, *(k for k in after if k not in before)]:
                sub = f"{path}[{key}={ident}]"
                if ident not in after:
                    _emit(out, sub, before[ident], None, "removed")
                elif ident not in before:
                    _emit(out, sub, None, after[ident], "added")
                else:
                    _walk(before[ident], after[ident], sub, out)
            return
    if old != new or type(old) is not type(new):
        _emit(out, path, old, new, "changed")


def _holds_knobs(path: str, value: Any) -> bool:
    if path in ("speculation.env", "speculation.params.engine"):
        return isinstance(value, dict)
    return path == "speculation.params" and isinstance(value, dict) and "engine" in value


def _all_keyed(items: list[Any], key: str) -> bool:
    idents = [item.get(key) for item in items if isinstance(item, dict)]
    return len(idents) == len(items) and len(set(map(str, idents))) == len(idents)


def highest_impact(changes: Iterable[Change]) -> Impact | None:
    present = {c.impact for c in changes}
    return next((impact for impact in IMPACT_ORDER if impact in present), None)


def requires_benchmark(changes: Iterable[Change]) -> bool:
    """Any route-identity change means the route itself changed: the gate must measure it."""
    return any(c.impact == "route-identity" for c in changes)
