"""Question 5: where the gains were measured, from the runs of the activating release."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q
from django.urls import reverse

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run
from contracts_app.models import ContractVersion, Route
from dashboard_app.selectors.checklist.answers import QUESTIONS, Answer, Evidence, field_evidence, join_words

DEMO_PROMPTS = 8
EN_DASH = "\u2013"  # the dash of a range, "1-32" (escaped: ruff flags the literal)


@dataclass(frozen=True)
class RegisteredWorkload:
    """What the answer says of a registered workload: where it came from and when."""

    name: str
    digest: str
    requests: int
    conversations: int
    source: str
    imported_on: str
    deleted: bool

    def words(self) -> str:
        if self.conversations < self.requests:
            count = f"{self.conversations} conversations"
        else:
            count = f"{self.requests} requests"
        source = f" from {self.source}" if self.source else ""
        deleted = "; its content has since been deleted" if self.deleted else ""
        when = f"{count} imported{source} on {self.imported_on}{deleted}"
        return f"workload {self.name} ({self.digest[:19]}…, {when})"


def _level_words(levels: Any) -> str:
    """'at concurrency 1-32', 'at 2-8 req/s' (with an en dash)."""
    levels = levels if isinstance(levels, list) else []
    conc = sorted(lv["concurrency"] for lv in levels if isinstance(lv, dict) and lv.get("concurrency"))
    rates = sorted(lv["rate"] for lv in levels if isinstance(lv, dict) and lv.get("rate"))
    parts = []
    if conc:
        parts.append(f"concurrency {conc[0]}" + (f"{EN_DASH}{conc[-1]}" if conc[-1] != conc[0] else ""))
    if rates:
        parts.append(
            f"{rates[0]:g}" + (f"{EN_DASH}{rates[-1]:g}" if rates[-1] != rates[0] else "") + " req/s"
        )
    return f" at {' and '.join(parts)}" if parts else ""


@dataclass(frozen=True)
class MeasuredLane:
    lane: str
    run_id: int
    release_id: int | None
    dataset: str
    workload: str | None
    workload_version: str | None
    prompts: int | None
    repeated: bool
    levels: str = ""
    registered: RegisteredWorkload | None = None

    @property
    def demo(self) -> bool:
        return self.prompts is not None and self.prompts < DEMO_PROMPTS

    def words(self) -> str:
        if self.registered is not None:
            return f"{self.lane} on {self.registered.words()}{self.levels} (run {self.run_id})"
        # Built-in prompt sets by their id; a file by the name the harness recorded.
        name = self.dataset if self.dataset.startswith("builtin:") else (self.workload or self.dataset)
        version = f" v{self.workload_version}" if self.workload_version else ""
        prompts = f", {self.prompts} distinct prompts" if self.prompts is not None else ""
        return f"{self.lane} ({name}{version}{prompts}, run {self.run_id}){self.levels}"


def _registered(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], RegisteredWorkload]:
    """The registered workloads the runs measured on, in one query."""
    from workloads_app.models import WorkloadVersion
    from workloads_app.selectors import with_content_flag

    pairs = {
        (r["spec__workload__name"], r["spec__workload__digest"]) for r in rows if r["spec__workload__digest"]
    }
    if not pairs:
        return {}
    q = Q()
    for name, digest in pairs:
        q |= Q(name=name, digest=digest)
    return {
        (w.name, w.digest): RegisteredWorkload(
            name=w.name,
            digest=w.digest,
            requests=w.requests,
            conversations=w.conversations,
            source=w.source,
            imported_on=f"{w.created_at:%Y-%m-%d}",
            deleted=not getattr(w, "has_content", True),
        )
        for w in with_content_flag(WorkloadVersion.objects.filter(q))
    }


def measured_lanes(route: Route, version: ContractVersion) -> list[MeasuredLane]:
    """The latest successful run per lane that measured `version` as the candidate. Reads
    only the workload part of each result (never the samples)."""
    rows = list(
        Run.objects.filter(route=route, candidate_version=version, state=RunState.SUCCEEDED)
        .annotate(workload_info=F("result__payload__candidate__workload"))
        .values(
            "pk",
            "lane",
            "release_id",
            "spec__workload__dataset",
            "spec__workload__name",
            "spec__workload__digest",
            "spec__load__levels",
            "workload_info",
        )
        .order_by("lane", "-id")
    )
    registered = _registered(rows)
    out: dict[str, MeasuredLane] = {}
    for row in rows:
        if row["lane"] in out:
            continue
        info = row["workload_info"] if isinstance(row["workload_info"], dict) else {}
        out[row["lane"]] = MeasuredLane(
            lane=row["lane"],
            run_id=row["pk"],
            release_id=row["release_id"],
            dataset=str(row["spec__workload__dataset"] or "?"),
            workload=info.get("name"),
            workload_version=info.get("version"),
            prompts=info.get("prompts"),
            repeated=bool(info.get("repeated_prompts")),
            levels=_level_words(row["spec__load__levels"]),
            registered=registered.get((row["spec__workload__name"], row["spec__workload__digest"])),
        )
    return list(out.values())


def q5_measured(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    allowed = list((doc.get("lanes") or {}).get("allowed") or [])
    excluded = set((doc.get("lanes") or {}).get("excluded") or [])
    if (doc.get("speculation") or {}).get("method", "none") == "none":
        return Answer(
            QUESTIONS[4],
            "Not applicable: speculation is off on this version, so there is no speculative gain to measure.",
            "not_applicable",
            [field_evidence(route, version, "speculation", "speculation")],
        )
    measured = measured_lanes(route, version)
    evidence = [
        Evidence("run", f"run {m.run_id} ({m.lane})", reverse("run-detail", args=[m.run_id]))
        for m in measured
    ]
    evidence.append(field_evidence(route, version, "measurement", "measurement"))
    if not measured:
        return Answer(
            QUESTIONS[4],
            f"Not measured: no benchmark of version {version.number} has finished, on any lane.",
            "not_measured",
            evidence,
        )
    real = [m for m in measured if m.lane in allowed and not m.demo]
    demo = [m for m in measured if m.demo]
    outside = [m for m in measured if m.lane not in allowed]
    unmeasured = [lane for lane in allowed if lane not in {m.lane for m in measured}]
    parts = []
    if real:
        parts.append(
            f"Measured on the real workload lanes: {join_words([m.words() for m in real])}; "
            f"{len(real)} of {len(allowed)} allowed lane{'s' if len(allowed) != 1 else ''}."
        )
    if demo:
        parts.append(
            f"Only a demo prompt set (fewer than {DEMO_PROMPTS} prompts) on "
            f"{join_words([m.words() for m in demo])}."
        )
    if outside:
        which = join_words([f"{m.lane}{' (excluded)' if m.lane in excluded else ''}" for m in outside])
        parts.append(f"Also measured on lanes the contract does not allow: {which}.")
    if unmeasured:
        parts.append(f"Not measured: {join_words(unmeasured)}.")
    if real and not unmeasured and not demo:
        status = "measured"
    elif real:
        status = "partial"
    elif demo:
        status = "demo_only"
    else:
        status = "not_measured"
    return Answer(QUESTIONS[4], " ".join(parts), status, evidence)
