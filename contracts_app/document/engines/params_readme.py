"""The format README's table of engine knobs (`speculation.params.engine`, `speculation.env`),
generated from engines/params.py and the engine tables (a test keeps the README equal to it).
Regenerate with `python -m contracts_app.document.engines.params_readme`."""

from __future__ import annotations

import sys

from . import KNOWLEDGE
from .params import ENV, PARAMS, Param
from .readme import README, _span, block_between, write_block

BEGIN = "<!-- engine-params:begin (generated: python -m contracts_app.document.engines.params_readme) -->"
END = "<!-- engine-params:end -->"


def _releases(engine: str, p: Param) -> str:
    k = KNOWLEDGE[engine]
    parts = []
    for spelling in p.spellings:
        feats = [f for f in k.features if f.kind == p.kind and f.name == spelling]
        spans = sorted({_span(f) or "every release read" for f in feats})
        parts.append(f"`{spelling}` {' / '.join(spans) if spans else 'every release read'}")
    return "; ".join(parts)


def _values(p: Param) -> str:
    text = p.describe()
    return text + (" (a flag without a value)" if p.bare else "")


def _rows(engine: str, params: tuple[Param, ...]) -> list[str]:
    rows = []
    for p in params:
        methods = ", ".join(p.methods) if p.methods else "any"
        rows.append(f"| `{p.name}` | {_values(p)} | {_releases(engine, p)} | {p.effect} | {methods} |")
    return rows


def params_sections() -> str:
    parts = [
        "| name | value | spelled, by release | changes | methods |",
        "| --- | --- | --- | --- | --- |",
    ]
    out = ["### speculation.params.engine", ""]
    for engine, params in PARAMS.items():
        if params:
            out += [f"{KNOWLEDGE[engine].name} ({params[0].source}):", "", *parts, *_rows(engine, params), ""]
        else:
            out += [f"{KNOWLEDGE[engine].name}: none.", ""]
    out += ["### speculation.env", ""]
    for engine, params in ENV.items():
        if params:
            out += [f"{KNOWLEDGE[engine].name} ({params[0].source}):", "", *parts, *_rows(engine, params), ""]
    return "\n".join(out).rstrip() + "\n"


def generated_block() -> str:
    return f"{BEGIN}\n{params_sections()}{END}"


def current_block(text: str) -> str:
    return block_between(text, BEGIN, END)


def write() -> None:
    write_block(BEGIN, END, generated_block())


if __name__ == "__main__":
    write()
    sys.stdout.write(f"wrote {README}\n")
