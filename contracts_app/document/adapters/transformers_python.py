"""A Transformers `generate(...)` call pasted as Python, read with `ast`: keyword arguments
with literal values, or names the same paste binds to a literal or to a
`X.from_pretrained("repo", revision=...)` (with `.to(...)`-style calls after it).
Anything else is refused by name: the import never guesses at code."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from .base import import_error

_CHAIN = {"to", "cuda", "cpu", "eval", "half", "float", "bfloat16"}


@dataclass(frozen=True)
class Loaded:
    """What `from_pretrained` loads: a repository (or path) and its revision."""

    repo: str
    revision: str | None = None


@dataclass
class Generate:
    model: Loaded | None
    kwargs: dict[str, Any]
    unpacked: list[str]


def looks_like_python(text: str) -> bool:
    return re.search(r"\bgenerate\s*\(", text) is not None


def _source(text: str) -> str:
    """The code of a paste; in a doctest-style paste (`>>> `) only the prompted lines are
    code, the others are printed output."""
    lines = text.splitlines()
    if any(line.lstrip().startswith(">>>") for line in lines):
        lines = [ln.lstrip()[4:] for ln in lines if ln.lstrip().startswith((">>>", "..."))]
    return textwrap.dedent("\n".join(lines))


def parse_generate(text: str) -> Generate:
    try:
        tree = ast.parse(_source(text))
    except SyntaxError as exc:
        raise import_error(f"the pasted Python does not parse (line {exc.lineno}: {exc.msg})") from None
    names: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _attr(n.func) == "generate"]
    if not calls:
        raise import_error("no generate(...) call in the pasted Python")
    if len(calls) > 1:
        raise import_error(f"{len(calls)} generate(...) calls in the pasted Python: paste the route's one")
    call = calls[0]
    kwargs: dict[str, Any] = {}
    unpacked: list[str] = []
    for kw in call.keywords:
        if kw.arg is None:
            unpacked.append(ast.unparse(kw.value))
            continue
        kwargs[kw.arg] = _value(kw.value, names, kw.arg)
    if call.args:
        unpacked.extend(ast.unparse(a) for a in call.args)
    model = None
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id in names:
        loaded = _loaded(names[receiver.id], names)
        model = loaded if isinstance(loaded, Loaded) else None
    return Generate(model=model, kwargs=kwargs, unpacked=unpacked)


def _attr(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _value(expr: ast.expr, names: dict[str, ast.expr], arg: str, depth: int = 0) -> Any:
    try:
        return ast.literal_eval(expr)
    except (ValueError, SyntaxError, TypeError):
        pass
    if isinstance(expr, ast.Name) and expr.id in names and depth < 5:
        bound = names[expr.id]
        loaded = _loaded(bound, names)
        if loaded is not None:
            return loaded
        return _value(bound, names, arg, depth + 1)
    loaded = _loaded(expr, names)
    if loaded is not None:
        return loaded
    raise import_error(
        f"generate() argument {arg}={ast.unparse(expr)} is not a literal value, nor a name this paste binds "
        "to one or to from_pretrained(...): give the value itself"
    )


def _loaded(expr: ast.expr, names: dict[str, ast.expr]) -> Loaded | None:
    """`X.from_pretrained("repo", revision="r")`, possibly followed by `.to("cuda")` etc."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _CHAIN:
        expr = expr.func.value
    if not (isinstance(expr, ast.Call) and _attr(expr.func) == "from_pretrained" and expr.args):
        return None
    first = expr.args[0]
    repo = _literal_or_bound(first, names)
    if not isinstance(repo, str):
        return None
    revision = next((kw.value for kw in expr.keywords if kw.arg == "revision"), None)
    rev = _literal_or_bound(revision, names) if revision is not None else None
    return Loaded(repo, rev if isinstance(rev, str) else None)


def _literal_or_bound(expr: ast.expr, names: dict[str, ast.expr]) -> Any:
    try:
        return ast.literal_eval(expr)
    except (ValueError, SyntaxError, TypeError):
        if isinstance(expr, ast.Name) and expr.id in names:
            try:
                return ast.literal_eval(names[expr.id])
            except (ValueError, SyntaxError, TypeError):
                return None
    return None
