"""Every word of an imported command that the adapter did not turn into a contract field,
judged against the engine's table: not part of a contract (speed, placement, serving),
renamed or removed (imported with a warning naming the replacement and the release), or a
speculation setting specpact/v1 cannot hold (refused by name, unless it has the engine's
default). A speculation-looking word the table does not know is refused too: what it
changes cannot be told, so it cannot be left out."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..engines.params import Param, by_spelling, check, env_text, parse
from ..engines.release import Feature, Kind, ReleaseView, history
from .base import Args, Skeleton

SPECULATIVE = re.compile(r"spec|draft|ngram|n_gram|eagle|medusa|mtp|lookup|assistant|dflash|dspark", re.I)
_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off", "none"}

# How an import says a speculation word it could not carry (never a refusal of the whole
# command, issue 23): the reviewer sees what is lost.
LEFT_OUT = "left out of the contract, review it"


def features_named(view: ReleaseView, name: str, kind: Kind) -> list[Feature]:
    return [f for f in view.knowledge.features if f.kind == kind and name in f.spellings]


def resolve(view: ReleaseView, name: str, kind: Kind) -> tuple[Feature | None, bool]:
    """(the feature `name` is, whether `view`'s release has it)."""
    feats = features_named(view, name, kind)
    active = [f for f in feats if f in list(view.features(kind))]
    if active:
        return active[0], True
    return (feats[-1] if feats else None), False


def moved(view: ReleaseView, feat: Feature, shown: str) -> str:
    """The warning for a word the release does not have under that spelling."""
    replacement = f"; use {feat.replaced_by}" if feat.replaced_by else f" ({feat.note})" if feat.note else ""
    return f"{shown} is not in {view.label}{replacement}: {history(view.knowledge, [feat])}"


def warn_if_moved(sk: Skeleton, view: ReleaseView, name: str, kind: Kind, shown: str) -> None:
    feat, active = resolve(view, name, kind)
    if feat is not None and not active:
        sk.say("argv", moved(view, feat, shown) + "; imported into the contract's field")


def at_default(feat: Feature, value: str | None) -> bool:
    if feat.default is None:
        return False
    if value is None:  # a bare flag given: it turns something on
        return feat.default.lower() in _TRUE
    a, b = value.strip().lower(), feat.default.strip().lower()
    if a == b or (a in _FALSE and b in _FALSE) or (a in _TRUE and b in _TRUE):
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def judge(
    sk: Skeleton,
    view: ReleaseView,
    items: Mapping[str, str | None],
    kind: Kind,
    *,
    spelled: Mapping[str, str] | None = None,
    where: str = "",
) -> None:
    """Record (or refuse) each left-over word; `where` prefixes config keys (e.g.
    `--speculative-config key`)."""
    for name, value in items.items():
        word = (spelled or {}).get(name, name)
        joint = "=" if kind in ("key", "env") else " "
        shown = f"{where}{word}" + ("" if value is None else f"{joint}{value}")
        feat, active = resolve(view, name, kind)
        knob = by_spelling(view.knowledge.engine, feat.name if feat else name, env=kind == "env")
        if knob is not None:
            if feat is not None and not active:
                sk.say("argv", moved(view, feat, shown))
            take_knob(sk, knob, word, value, shown)
            continue
        if feat is None:
            if SPECULATIVE.search(name):
                sk.say(
                    "argv",
                    f"{shown}: not a {view.knowledge.name} setting SpecPact knows; it looks like it "
                    f"changes speculation, and what it changes cannot be told: {LEFT_OUT}",
                )
            else:
                sk.say("argv", f"{shown} is not part of a contract; ignored")
            continue
        if not active:
            sk.say("argv", moved(view, feat, shown))
        if feat.role == "refused" and not at_default(feat, value):
            why = f" ({feat.note})" if feat.note else ""
            sk.say(
                "argv",
                f"{shown}: changes speculation{why} and specpact/v1 has no field for it ({feat.source}): "
                f"{LEFT_OUT}",
            )
        elif feat.role == "refused":
            sk.say("argv", f"{shown} is {view.knowledge.name}'s default: not part of a contract")
        else:
            note = f" ({feat.note})" if feat.note and feat.role == "tuning" else ""
            sk.say("argv", f"{shown} is not part of a contract{note}; ignored")


def take_knob(sk: Skeleton, knob: Param, word: str, value: str | None, shown: str) -> None:
    """An engine knob into speculation.params.engine (or speculation.env); a value of the
    wrong type is an unresolved line, not a refusal of the command."""
    if knob.kind == "env":
        why = env_text(knob, value or "")
        if why:
            sk.say("argv", f"{shown}: {knob.name} {why}; left out")
            return
        sk.env[knob.name] = value or ""
        sk.say(f"speculation.env.{knob.name}", f"from {shown} ({knob.source})")
        return
    negated = word.startswith("--no-") and knob.bare
    try:
        typed = False if negated else parse(knob, value)
    except ValueError as exc:
        sk.say("argv", f"{shown}: {word} {exc}; left out")
        return
    why = check(knob, typed)
    if why:
        sk.say("argv", f"{shown}: {word} {why}; left out")
        return
    sk.engine_params[knob.name] = typed
    sk.say(f"speculation.params.engine.{knob.name}", f"from {shown} ({knob.source})")


def judge_leftovers(sk: Skeleton, view: ReleaseView, args: Args) -> None:
    """After the fields took theirs: every flag left is judged and every stray word named,
    so that nothing on the command line is dropped silently."""
    judge(sk, view, args.options, "flag", spelled=args.spelled)
    for extra in args.positionals:
        sk.say("argv", f"unexpected argument {extra!r}; ignored")


def dated(view: ReleaseView, names: list[str], kind: Kind) -> tuple[ReleaseView, list[str]]:
    """A command that states no release but spells words only older releases accept is read
    by the rules of the newest release that accepts them all; the messages say so and name
    each word's replacement and the release that changed it."""
    k = view.knowledge
    known = [n for n in names if features_named(view, n, kind)]
    old = [n for n in known if not resolve(view, n, kind)[1]]
    if view.version != k.newest or not view.assumed or not old:
        return view, []
    ranges = k.ranges()
    for i in range(len(ranges) - 1, -1, -1):
        start, end = ranges[i]
        older = k.view(str(start))
        if older.gap is None and all(resolve(older, n, kind)[1] for n in known):
            upto = f" up to {end} (excluded)" if end else ""
            said = [
                f"no engine version is stated and {', '.join(old)} {'is' if len(old) == 1 else 'are'} not "
                f"in {view.label}: read by the rules of {older.label}{upto}, the newest releases that "
                "accept every word; give the version to read it otherwise"
            ]
            for name in old:
                feat = resolve(view, name, kind)[0]
                if feat is not None:
                    said.append(moved(view, feat, name))
            return older, said
    return view, []


def env_flags(view: ReleaseView) -> dict[str, Feature]:
    """Environment variables the engine reads as one of its flags (TGI: every launcher flag
    under its upper-case name; llama.cpp: LLAMA_ARG_*)."""
    return {f.env: f for f in view.knowledge.features if f.env}
