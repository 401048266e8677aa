"""Question 5: where the gains were measured, from the runs of the activating release."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import F
from django.urls import reverse

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run
from contracts_app.models import ContractVersion, Route
from dashboard_app.selectors.checklist.answers import QUESTIONS, Answer, Evidence, field_evidence, join_words

DEMO_PROMPTS = 8


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

    @property
    def demo(self) -> bool:
        return self.prompts is not None and self.prompts < DEMO_PROMPTS

    def words(self) -> str:
        # Built-in prompt sets by their id; a file by the name the harness recorded.
        name = self.dataset if self.dataset.startswith("builtin:") else (self.workload or self.dataset)
        version = f" v{self.workload_version}" if self.workload_version else ""
        prompts = f", {self.prompts} distinct prompts" if self.prompts is not None else ""
        return f"{self.lane} ({name}{version}{prompts}, run {self.run_id})"


def measured_lanes(route: Route, version: ContractVersion) -> list[MeasuredLane]:
    """The latest successful run per lane that measured `version` as the candidate. Reads
    only the workload part of each result (never the samples)."""
    rows = (
        Run.objects.filter(route=route, candidate_version=version, state=RunState.SUCCEEDED)
        .annotate(workload_info=F("result__payload__candidate__workload"))
        .values("pk", "lane", "release_id", "spec__workload__dataset", "workload_info")
        .order_by("lane", "-id")
    )
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
        parts.append(f"Measured on the real workload lanes: {join_words([m.words() for m in real])}.")
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
