"""The format README's engine sections, generated from the engine table (a test keeps the
README equal to them). Regenerate with `python -m contracts_app.document.engines.readme`."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from . import KNOWLEDGE
from .methods import ENGINES, METHODS
from .release import EngineKnowledge, Feature

BEGIN, END = (
    "<!-- engine-table:begin (generated: python -m contracts_app.document.engines.readme) -->",
    ("<!-- engine-table:end -->"),
)
README = Path(__file__).resolve().parents[1] / "README.md"


def _span(f: Feature) -> str:
    if f.since and f.until:
        return f"{f.since} to {f.until} (excl.)"
    if f.since:
        return f"{f.since}+"
    if f.until:
        return f"before {f.until}"
    return ""


def _cell(k: EngineKnowledge, method: str) -> str:
    feats = [f for f in k.features if f.kind == "method" and f.method == method]
    if not feats:
        return "-"
    by_span: dict[str, list[str]] = defaultdict(list)
    for f in feats:
        name = f"`{f.name}`" if not f.name.startswith("-") else f"`{f.name}` alone"
        if name not in by_span[_span(f)]:
            by_span[_span(f)].append(name)
    parts = [", ".join(names) + (f" ({span})" if span else "") for span, names in by_span.items()]
    return "; ".join(parts)


def method_table() -> str:
    names = [KNOWLEDGE[e].name for e in ENGINES]
    lines = ["| method | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for method in METHODS:
        if method == "none":
            continue
        lines.append(f"| {method} | " + " | ".join(_cell(KNOWLEDGE[e], method) for e in ENGINES) + " |")
    return "\n".join(lines)


def _label(f: Feature) -> str:
    served = f.method if f.kind != "method" and f.method else None
    return f"`{f.name}`" + (f" ({served})" if served else "")


def _changes(k: EngineKnowledge) -> list[str]:
    out = []
    remarks = dict(k.remarks)
    for start, _ in k.ranges():
        added = [f for f in k.features if f.since and k.version(f.since) == start and f.kind != "env"]
        gone = [f for f in k.features if f.until and k.version(f.until) == start and f.kind != "env"]
        gap = next((g for g in k.gaps if k.version(g.first) == start), None)
        if gap:
            out.append(f"- **{start} to {gap.last}**: not established: {gap.reason}.")
            continue
        both = {f.name for f in added} & {f.name for f in gone}
        words = []
        if added := list({f.name: f for f in reversed(added) if f.name not in both}.values())[::-1]:
            words.append("adds " + ", ".join(dict.fromkeys(_label(f) for f in added)))
        if gone := [f for f in gone if f.name not in both]:
            words.append("drops " + ", ".join(dict.fromkeys(_label(f) for f in gone)))
        if both:
            words.append("changes what " + ", ".join(f"`{n}`" for n in sorted(both)) + " does")
        if start == k.oldest:
            words.insert(0, "the oldest release the table knows")
        remark = remarks.get(str(start))
        if remark:
            words.append(remark)
        if words:
            out.append(f"- **{start}**: " + "; ".join(words) + ".")
    return out


def engine_sections() -> str:
    parts = [
        "## Engines",
        "",
        "What each engine runs, by release (`engines/<engine>.py`, every entry citing where it was read):",
        "",
        method_table(),
        "",
    ]
    for engine in ENGINES:
        k = KNOWLEDGE[engine]
        parts += [f"### {k.name}", "", f"Releases read: {', '.join(v for v, _ in k.releases)}.", ""]
        parts += _changes(k)
        metrics = [f"`{f.name}`" for f in k.features if f.kind == "metric"]
        endpoints = [f"`{f.name}`" for f in k.features if f.kind == "endpoint"]
        parts += [
            "",
            f"Metrics: {', '.join(metrics) or 'none'}. Endpoints: {', '.join(endpoints) or 'none'}.",
        ]
        for note in k.notes:
            parts.append(f"- {note}")
        if k.out_of_scope:
            parts += ["", "Out of scope of specpact/v1:"]
            parts += [f"- {name}: {why}." for name, why in k.out_of_scope]
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def generated_block() -> str:
    return f"{BEGIN}\n{engine_sections()}{END}"


def block_between(text: str, begin: str, end: str) -> str:
    """The README's generated block that starts with `begin` and ends with `end`, both included."""
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[start:stop]


def write_block(begin: str, end: str, generated: str) -> None:
    """Replace the README's block between `begin` and `end` with `generated`."""
    text = README.read_text(encoding="utf-8")
    README.write_text(text.replace(block_between(text, begin, end), generated), encoding="utf-8")


def current_block(text: str) -> str:
    return block_between(text, BEGIN, END)


def write() -> None:
    write_block(BEGIN, END, generated_block())


if __name__ == "__main__":
    write()
    sys.stdout.write(f"wrote {README}\n")
