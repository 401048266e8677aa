"""The six checklist questions of a route (DESIGN §6), answered in plain words from its
active contract and the evidence behind it: contract fields, benchmark runs, audit events.

One selector for the route page, the printable card, its Markdown export and
`GET /api/v1/routes/{slug}/checklist`, so the four never disagree. A fixed number of
queries whatever the route's history: the active version comes with the route, then one
query each for the release that activated it, its approval, and the runs that measured it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db.models import F
from django.urls import reverse

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run
from contracts_app.document import rollback_target_of
from contracts_app.document.engines import METHOD_INFO, method_name
from contracts_app.models import ContractVersion, Route
from releases_app.choices import ReleaseState
from releases_app.models import Decision, Release

QUESTIONS = (
    "Which speculation method is active on this route right now?",
    "Does the route depend on a second model, Medusa heads, or prompt-lookup heuristics?",
    "Are tokenizer compatibility and batching limits documented?",
    "Which tasks is the method approved for, and which are excluded?",
    "Were the latency gains measured on the real workload lane or only on a demo prompt?",
    "What is the rollback plan if the speedup changes production behaviour?",
)

_TRIGGERS = {
    "gate_fail": "the benchmark gate fails",
    "output_stability_breach": "outputs stop matching the baseline's",
    "latency_regression": "latency regresses",
    "manual": "an approver decides to",
}
# A prompt set this small is a demo, not a workload.
DEMO_PROMPTS = 8
STATUS_WORDS = {
    "documented": "documented",
    "partial": "partly",
    "missing": "missing",
    "measured": "measured",
    "demo_only": "demo prompt only",
    "not_measured": "not measured",
    "not_applicable": "not applicable",
}


@dataclass(frozen=True)
class Evidence:
    kind: str  # contract_field | run | release | audit_event
    label: str
    url: str


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str
    status: str  # a key of STATUS_WORDS
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def status_words(self) -> str:
        return STATUS_WORDS.get(self.status, self.status)


@dataclass(frozen=True)
class Checklist:
    route: str
    active_version: int | None
    answers: list[Answer]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _field(route: Route, version: ContractVersion, section: str, label: str) -> Evidence:
    url = reverse("version-detail", args=[route.slug, version.number]) + f"#field-{section}"
    return Evidence("contract_field", f"v{version.number} {label}", url)


def audit_url(**filters: Any) -> str:
    """The audit page filtered (the audit page's filters: route, action, actor, object)."""
    return "/audit/?" + urlencode({k: v for k, v in filters.items() if v})


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def route_checklist(route: Route) -> Checklist:
    """`route` as `contracts_app.selectors.route_get` returns it (active version joined)."""
    version = route.active_version
    if version is None:
        missing = "No version of this route is active yet, so nothing is promised: propose a release."
        return Checklist(route.slug, None, [Answer(q, missing, "missing") for q in QUESTIONS])
    doc = version.document
    activation = _activating_release(route, version)
    return Checklist(
        route.slug,
        version.number,
        [
            _q1_method(route, version, doc, activation),
            _q2_dependencies(route, version, doc),
            _q3_compatibility(route, version, doc),
            _q4_lanes(route, version, doc),
            _q5_measured(route, version, doc),
            _q6_rollback(route, version, doc, activation),
        ],
    )


@dataclass(frozen=True)
class _Activation:
    """How the active version got there: the approval of `release` (how "approved"), or
    the rollback of `release` (how "rolled_back"), by `by`."""

    release: Release
    how: str
    by: str | None


def _activating_release(route: Route, version: ContractVersion) -> _Activation | None:
    """The latest release that changed the route's active version: its approval made
    `version` active, or its rollback returned the route to `version`."""
    release = (
        Release.objects.filter(route=route, state__in=[ReleaseState.ACTIVE, ReleaseState.ROLLED_BACK])
        .select_related("baseline_version")
        .order_by("-id")
        .first()
    )
    if release is None:
        return None
    how = "approved" if release.state == ReleaseState.ACTIVE else "rolled_back"
    if how == "approved" and release.candidate_version_id != version.pk:
        return None
    kind = "approve" if how == "approved" else "rollback"
    decision = (
        Decision.objects.filter(release=release, kind=kind)
        .select_related("decided_by")
        .order_by("-id")
        .first()
    )
    who = decision.decided_by.get_username() if decision and decision.decided_by else None
    return _Activation(release, how, who)


def _release_evidence(route: Route, activation: _Activation | None) -> list[Evidence]:
    if activation is None:
        return []
    pk = activation.release.pk
    return [
        Evidence("release", f"release #{pk}", reverse("release-detail", args=[pk])),
        Evidence(
            "audit_event",
            f"audit trail of release #{pk}",
            audit_url(route=route.slug, object=f"release:{pk}"),
        ),
    ]


def _q1_method(
    route: Route, version: ContractVersion, doc: dict[str, Any], activation: _Activation | None
) -> Answer:
    spec = doc.get("speculation") or {}
    method = str(spec.get("method", "none"))
    target = doc.get("target") or {}
    engine = f"{target.get('engine')} {target.get('engine_version') or ''}".strip()
    if method == "none":
        text = f"None: speculation is off. Version {version.number} serves {target.get('model')} on {engine}."
    else:
        tokens = spec.get("num_speculative_tokens")
        text = (
            f"{method_name(method).capitalize()} ({method}), "
            f"{tokens} speculative tokens per step, on {engine} serving {target.get('model')} "
            f"(contract version {version.number})."
        )
    if activation is not None and activation.how == "approved":
        by = f", approved by {activation.by}" if activation.by else ""
        text += f" Active since release #{activation.release.pk}{by}."
    elif activation is not None:
        by = f" by {activation.by}" if activation.by else ""
        text += f" Active again since release #{activation.release.pk} was rolled back{by}."
    elif route.active_since is None:
        text += " How it became active is not recorded."
    return Answer(
        QUESTIONS[0],
        text,
        "documented",
        [_field(route, version, "speculation", "speculation"), *_release_evidence(route, activation)],
    )


def _q2_dependencies(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    spec = doc.get("speculation") or {}
    method = str(spec.get("method", "none"))
    params = spec.get("params") or {}
    assets = doc.get("assets") or []
    evidence = [_field(route, version, "speculation", "speculation")]
    if assets:
        evidence.append(_field(route, version, "assets", "assets"))
    dependency = METHOD_INFO[method].dependency if method in METHOD_INFO else None
    if dependency:
        if not assets:
            return Answer(
                QUESTIONS[1],
                f"Yes, {dependency}, but the contract lists no asset.",
                "missing",
                evidence,
            )
        described = [_asset_words(a) for a in assets]
        unpinned = [a["name"] for a in assets if not a.get("revision") and not a.get("digest")]
        text = f"Yes: {dependency}: {_join(described)}."
        if unpinned:
            text += f" Not pinned to a revision or digest: {_join(unpinned)}."
        return Answer(QUESTIONS[1], text, "partial" if unpinned else "documented", evidence)
    if method == "ngram":
        lo, hi = params.get("prompt_lookup_min"), params.get("prompt_lookup_max")
        window = f" (matching {lo} to {hi} tokens)" if lo and hi else ""
        text = (
            "No second model. It depends on prompt-lookup heuristics: drafts are n-grams "
            f"copied from the prompt{window}."
        )
    elif method == "suffix":
        text = "No second model. It depends on suffix-tree heuristics over the prompt and earlier outputs."
    elif method == "mtp":
        text = "No separate model: the target's own multi-token-prediction layers draft."
    elif method == "early_exit":
        layer = params.get("early_exit_layer", "?")
        text = f"No second model: an early layer of the target drafts (layer {layer})."
    else:
        text = "No: speculation is off, the route depends on the target model alone."
    return Answer(QUESTIONS[1], text, "documented", evidence)


def _asset_words(asset: dict[str, Any]) -> str:
    pin = asset.get("revision") or asset.get("digest") or "unpinned"
    size = f", {asset['size_bytes'] / 1e9:.2f} GB" if asset.get("size_bytes") else ""
    return f"{asset.get('role')} {asset.get('name')} @ {str(pin)[:12]}{size}"


def _token_schedule_text(schedule: list[dict[str, int]]) -> str:
    """`[{up_to_batch_size: 8, num_speculative_tokens: 4}, {64, 0}]` → "speculative tokens
    by batch size: 4 up to batch 8, none up to batch 64"."""
    steps = [
        f"{step['num_speculative_tokens'] or 'none'} up to batch {step['up_to_batch_size']}"
        for step in schedule
    ]
    return "speculative tokens by batch size: " + ", ".join(steps)


def _q3_compatibility(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    compat = doc.get("compatibility") or {}
    tok = compat.get("tokenizer") or {}
    batching = compat.get("batching") or {}
    decoding = compat.get("decoding") or {}
    gaps = []
    pin = tok.get("revision") or tok.get("digest")
    tok_text = f"tokenizer {tok.get('name')}" + (
        f" @ {str(pin)[:12]}" if pin else " (not pinned to a revision)"
    )
    if not pin:
        gaps.append("the tokenizer is not pinned")
    drafts = [a for a in doc.get("assets") or [] if a.get("role") == "draft"]
    for draft in drafts:
        if not draft.get("tokenizer"):
            gaps.append(f"the draft {draft.get('name')} names no tokenizer to check against the target's")
    if drafts and not gaps:
        tok_text += "; the draft's tokenizer is named and checked against it"
    limits = [f"batches up to {batching.get('max_batch_size')}"]
    if batching.get("speculation_off_above_batch_size"):
        limits.append(f"speculation off above batch size {batching['speculation_off_above_batch_size']}")
    schedule = ((doc.get("speculation") or {}).get("params") or {}).get("token_schedule")
    if schedule:
        limits.append(_token_schedule_text(schedule))
    limits.append(f"at most {compat.get('max_concurrency')} concurrent requests")
    modes = " and ".join(decoding.get("modes") or [])
    temp = (
        f" (temperature ≤ {decoding['temperature_max']:g})"
        if decoding.get("temperature_max") is not None
        else ""
    )
    text = f"Yes: {tok_text}. Batching: {_join(limits)}. Decoding: {modes}{temp}."
    if gaps:
        text = f"Partly: {_join(gaps)}. " + text.removeprefix("Yes: ")
    return Answer(
        QUESTIONS[2],
        text,
        "partial" if gaps else "documented",
        [_field(route, version, "compatibility", "compatibility")],
    )


def _q4_lanes(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    lanes = doc.get("lanes") or {}
    allowed, excluded = list(lanes.get("allowed") or []), list(lanes.get("excluded") or [])
    text = f"Approved for {_join(allowed) or 'no lane'}"
    text += f"; excluded: {_join(excluded)}." if excluded else "; no lane is explicitly excluded."
    return Answer(
        QUESTIONS[3], text, "documented" if allowed else "missing", [_field(route, version, "lanes", "lanes")]
    )


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


def _q5_measured(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    allowed = list((doc.get("lanes") or {}).get("allowed") or [])
    excluded = set((doc.get("lanes") or {}).get("excluded") or [])
    if (doc.get("speculation") or {}).get("method", "none") == "none":
        return Answer(
            QUESTIONS[4],
            "Not applicable: speculation is off on this version, so there is no speculative gain to measure.",
            "not_applicable",
            [_field(route, version, "speculation", "speculation")],
        )
    measured = measured_lanes(route, version)
    evidence = [
        Evidence("run", f"run {m.run_id} ({m.lane})", reverse("run-detail", args=[m.run_id]))
        for m in measured
    ]
    evidence.append(_field(route, version, "measurement", "measurement"))
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
        parts.append(f"Measured on the real workload lanes: {_join([m.words() for m in real])}.")
    if demo:
        parts.append(
            f"Only a demo prompt set (fewer than {DEMO_PROMPTS} prompts) on "
            f"{_join([m.words() for m in demo])}."
        )
    if outside:
        which = _join([f"{m.lane}{' (excluded)' if m.lane in excluded else ''}" for m in outside])
        parts.append(f"Also measured on lanes the contract does not allow: {which}.")
    if unmeasured:
        parts.append(f"Not measured: {_join(unmeasured)}.")
    if real and not unmeasured and not demo:
        status = "measured"
    elif real:
        status = "partial"
    elif demo:
        status = "demo_only"
    else:
        status = "not_measured"
    return Answer(QUESTIONS[4], " ".join(parts), status, evidence)


def _q6_rollback(
    route: Route, version: ContractVersion, doc: dict[str, Any], activation: _Activation | None
) -> Answer:
    rollback = doc.get("rollback") or {}
    to = rollback_target_of(doc)
    if to.kind == "speculation_off":
        plan = "Switch speculation off: the same target, engine and limits with plain decoding"
    elif activation is not None and activation.how == "rolled_back":
        plan = (
            f"None in force: version {version.number} came back by rolling back release "
            f"#{activation.release.pk}, and no release is active to roll back; a change is a new release"
        )
    elif to.kind == "previous":
        previous = activation.release.baseline_version if activation else None
        if previous is not None:
            method = previous.speculation_method
            plan = f"Return to the previous version, v{previous.number} ({method_name(method)})"
        else:
            plan = (
                "Return to the previous version (none is recorded for this route yet, "
                "so a rollback has no target)"
            )
    else:
        plan = f"Return to version {to.number}"
    triggers = [_TRIGGERS.get(t, t) for t in rollback.get("when") or []]
    text = plan + (f", when {_join(triggers)}." if triggers else "; no trigger is named, so only by hand.")
    text += " Rollback is one approved action, recorded in the audit trail."
    evidence = [
        _field(route, version, "rollback", "rollback"),
        Evidence(
            "audit_event",
            "rollbacks of this route",
            audit_url(route=route.slug, action="release.rolled_back"),
        ),
    ]
    missing_target = (activation is not None and activation.how == "rolled_back") or (
        to == "previous" and (activation is None or activation.release.baseline_version is None)
    )
    return Answer(QUESTIONS[5], text, "partial" if missing_target else "documented", evidence)
