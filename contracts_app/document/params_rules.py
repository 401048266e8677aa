"""Rules of `speculation.params.engine` and `speculation.env`: each name must be one of the
engine's knobs (engines/params.py), spelled by the release the contract names, for the
contract's method, with a value of its type and range. Messages name the field and the
release that gained or lost the knob."""

from __future__ import annotations

from collections.abc import Iterator

from .engines.params import ENV, PARAMS, Param, check, env_text, param, spelling_in, when
from .engines.release import ReleaseView
from .errors import FieldError
from .schema import ContractDocument

PARAMS_PATH = "speculation.params.engine"
ENV_PATH = "speculation.env"


def errors(doc: ContractDocument, view: ReleaseView) -> list[FieldError]:
    spec = doc.speculation
    if spec.method == "none":
        if spec.env:
            return [FieldError(ENV_PATH, "speculation is off (method none): it takes no environment")]
        return []  # rules.py refuses params on method none
    found: list[FieldError] = []
    params = spec.params.engine if spec.params and spec.params.engine else {}
    for name, value in params.items():
        found += _one(doc, view, f"{PARAMS_PATH}.{name}", param(doc.target.engine, name), value, env=False)
    for name, text in (spec.env or {}).items():
        found += _one(
            doc, view, f"{ENV_PATH}.{name}", param(doc.target.engine, name, env=True), text, env=True
        )
    return found


def _one(
    doc: ContractDocument, view: ReleaseView, path: str, p: Param | None, value: object, *, env: bool
) -> Iterator[FieldError]:
    k, method = view.knowledge, doc.speculation.method
    if p is None:
        table = (ENV if env else PARAMS).get(doc.target.engine, ())
        what = "environment variable" if env else "speculation setting"
        known = f"one of {', '.join(sorted(q.name for q in table))}" if table else f"{k.name} has none"
        yield FieldError(path, f"not a {k.name} {what} SpecPact knows ({known})")
        return
    if spelling_in(view, p) is None:
        yield FieldError(path, f"{view.label} cannot be told it: {when(view, p)}")
        return
    if p.methods and method not in p.methods:
        yield FieldError(path, f"applies to method {', '.join(p.methods)}, not {method}")
        return
    why = env_text(p, value) if env and isinstance(value, str) else check(p, value)
    if why:
        yield FieldError(path, why)
