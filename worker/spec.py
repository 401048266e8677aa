"""The run specification: everything a worker needs to run one benchmark, in the task
message, so the worker never reads the database.

A versioned JSON shape (`spec_version`), published as a JSON schema
(`GET /api/v1/runs/spec-schema`, docs/run-spec.md). Only pydantic and the harness's
pure-pydantic plan models are imported, so the control plane builds specs with this
module and the worker reads them with it.

Compatibility rule: `spec_version`, `run_id` and `attempt` are the envelope and keep their
names and meaning in every version, so a worker that cannot read a newer (or older) spec
can still say so, about the right run, and the refusal lands as the run's `last_error`.
A change a version-1 reader would misread bumps `spec_version`.

Interleaving (`interleave`):
- `abba_per_level` (in-process and given-endpoint engines): for each load level in turn,
  both arms back to back, the first arm alternating level by level (level 1: baseline then
  candidate, level 2: candidate then baseline, …), so slow drift on the machine (thermal,
  background load, a server's cache filling) falls on both arms alike.
- `arm_blocks` (managed engines): launching a server costs minutes, so each arm's server
  is launched once and runs all levels; the arm order is recorded with the result.
- `alternating_blocks` (in-process and given-endpoint engines; what the control plane now
  sends them): within every level the requests are cut into blocks and the arms alternate
  block by block, A B B A A B …, the first arm alternating level by level as above. Host
  drift inside a level then splits between the arms instead of landing on whichever ran
  second (with one level, `abba_per_level` is plain A then B). Blocks, not single
  requests: each block is one harness plan, so a closed loop at concurrency C keeps C
  requests in flight for most of a block (blocks hold at least `BLOCKS_PER_CONCURRENCY` x C
  requests), and the harness's per-level engine counters are read per block and summed.
  Per request would need both arms up at once and a harness that mixes two targets in one
  level: given endpoints are both up, but an in-process engine runs one request at a time,
  and a managed engine's two servers (each a whole GPU's worth of model) are started one
  after the other, so managed runs keep `arm_blocks`: switching there costs a server
  launch (minutes) per block.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails

from worker.harness.plan import Engine
from worker.harness.results.bounds import MAX_TOKENS
from worker.harness.results.levels import SLO
from worker.harness.results.result import BenchHeader, BenchResult, Sampling
from worker.harness.validate import validate_result_stream

SPEC_VERSION = 1
SUPPORTED_SPEC_VERSIONS: tuple[int, ...] = (1,)

# Bounds (one place): ids are bigint, attempts and counters int columns on the control
# plane; a run of at most MAX_LEVELS x MAX_REQUESTS_PER_LEVEL x 2 requests keeps every
# derived count (progress totals, result sizes) far inside them. Adding a field or raising
# a bound a version-1 reader refuses is not a misreading: no version bump.
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
MAX_ATTEMPTS = INT32_MAX
MAX_LEVELS = 32
MAX_REQUESTS_PER_LEVEL = 100_000
MAX_WARMUP_REQUESTS = 1000
MAX_CONCURRENCY = 100_000
MAX_RATE = 1e6
MAX_TIME_LIMIT_S = 7 * 24 * 3600
RUN_TASK_NAME = "specpact.worker.run_benchmark"

ArmName = Literal["baseline", "candidate"]
Interleave = Literal["abba_per_level", "arm_blocks", "alternating_blocks"]
# alternating_blocks: the smallest block, and how many concurrent slots' worth a block
# holds at a concurrency level; at most MAX_BLOCKS blocks per arm and level (bounds the
# `order` of an upload).
MIN_BLOCK_REQUESTS = 8
BLOCKS_PER_CONCURRENCY = 4
MAX_BLOCKS = 16


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Arm(_Model):
    """One side of the comparison: a contract version and the engine configuration
    rendered from it."""

    contract_version: int = Field(ge=1, le=INT32_MAX, description="the route's version number")
    digest: str = Field(max_length=100, description="sha256 of the contract version's canonical JSON")
    speculation_method: str = Field(max_length=64)
    engine: Engine = Field(description="how the harness runs this arm (worker.harness.plan)")
    rendered: dict[str, Any] = Field(
        default_factory=dict,
        description="the engine's own configuration rendered from the contract, for the record",
    )


class Arms(_Model):
    baseline: Arm
    candidate: Arm


class Workload(_Model):
    lane: str = Field(max_length=64, description="the workload lane measured (chat, extraction, …)")
    dataset: str = Field(
        max_length=500,
        description="builtin:<lane> for the prompt sets shipped with the worker, "
        "workload:<name>@sha256:<hex> for a registered workload, or a path on the worker",
    )
    dataset_version: str | None = Field(default=None, max_length=100)
    name: str | None = Field(default=None, max_length=200, description="a registered workload's name")
    digest: str | None = Field(
        default=None,
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="a registered workload's digest: the worker downloads it (GET runs/{id}/workload), "
        "checks the bytes against it and refuses a mismatch",
    )
    arrival: Literal["poisson", "trace"] = Field(
        default="poisson",
        description="rate levels: seeded Poisson arrivals, or the workload's own recorded arrival "
        "offsets scaled to each level's rate (trace)",
    )

    @model_validator(mode="after")
    def _registered(self) -> Workload:
        if self.dataset.startswith("workload:") and (self.digest is None or self.name is None):
            raise ValueError("a workload: dataset needs its name and digest")
        return self


class LoadLevel(_Model):
    """Exactly one of: closed-loop concurrency, or open-loop request rate (req/s)."""

    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)
    rate: float | None = Field(default=None, gt=0, le=MAX_RATE)

    @model_validator(mode="after")
    def _one_kind(self) -> LoadLevel:
        if (self.concurrency is None) == (self.rate is None):
            raise ValueError("a load level has exactly one of concurrency or rate")
        return self


class Load(_Model):
    levels: list[LoadLevel] = Field(min_length=1, max_length=MAX_LEVELS)
    requests_per_level: int = Field(ge=1, le=MAX_REQUESTS_PER_LEVEL)
    warmup_requests: int = Field(
        default=1, ge=0, le=MAX_WARMUP_REQUESTS, description="per arm and level, not measured"
    )


class Limits(_Model):
    """Celery enforces these on the worker; the control plane's sweep marks a run
    timed_out when the hard limit plus a grace period has passed without an answer."""

    soft_time_limit_s: int = Field(
        ge=1, le=MAX_TIME_LIMIT_S, description="the task is told to stop and report timed_out"
    )
    time_limit_s: int = Field(ge=1, le=MAX_TIME_LIMIT_S, description="the task's process is killed")
    request_timeout_s: float = Field(default=600, gt=0, le=MAX_TIME_LIMIT_S)

    @model_validator(mode="after")
    def _soft_first(self) -> Limits:
        if self.soft_time_limit_s >= self.time_limit_s:
            raise ValueError("soft_time_limit_s must be below time_limit_s")
        return self


class RunSpec(_Model):
    """Version 1 of the run specification."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="SpecPact run specification v1")

    spec_version: Literal[1] = 1
    run_id: int = Field(ge=1, le=INT64_MAX)
    attempt: int = Field(
        ge=1, le=MAX_ATTEMPTS, description="grows when a lost run is requeued; results are keyed by it"
    )
    route: str = Field(max_length=64)
    release_id: int | None = Field(default=None, ge=1, le=INT64_MAX)
    arms: Arms
    interleave: Interleave
    block_requests: int | None = Field(
        default=None,
        ge=1,
        le=MAX_REQUESTS_PER_LEVEL,
        description="alternating_blocks: the smallest block of requests per arm (default "
        f"{MIN_BLOCK_REQUESTS}); a level's blocks also hold at least {BLOCKS_PER_CONCURRENCY} x its "
        f"concurrency and number at most {MAX_BLOCKS} per arm",
    )
    workload: Workload
    load: Load
    max_tokens: int = Field(ge=1, le=MAX_TOKENS)
    sampling: Sampling | None = Field(default=None, description="null: the lane's own sampling settings")
    seed: int = Field(ge=0, le=INT64_MAX)
    limits: Limits
    slo: SLO | None = None
    memory_headroom_min_gib: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _engines_pair(self) -> RunSpec:
        if self.arms.baseline.engine.kind != self.arms.candidate.engine.kind:
            raise ValueError("baseline and candidate must use the same engine kind")
        return self

    @property
    def engine_kind(self) -> str:
        return self.arms.baseline.engine.kind

    @property
    def total_requests(self) -> int:
        return 2 * len(self.load.levels) * self.load.requests_per_level

    def order(self) -> list[tuple[int, ArmName]]:
        """(level index, arm) in the order the worker runs them; under `alternating_blocks`
        one entry per block (so a (level, arm) appears once per block)."""
        return [(i, arm) for i, arm, _, _ in self.pieces()]

    def block_sizes(self, level_index: int) -> list[int]:
        """alternating_blocks: the requests in each of a level's blocks (the same for both
        arms, which get the same prompts block by block); one block otherwise."""
        n = self.load.requests_per_level
        if self.interleave != "alternating_blocks":
            return [n]
        level = self.load.levels[level_index]
        k = max(
            self.block_requests or MIN_BLOCK_REQUESTS,
            BLOCKS_PER_CONCURRENCY * (level.concurrency or 0),
            -(-n // MAX_BLOCKS),
        )
        k = min(k, n)
        sizes = [k] * (n // k)
        sizes[-1] += n % k  # a short remainder joins the last block
        return sizes

    def pieces(self) -> list[tuple[int, ArmName, int, int]]:
        """(level index, arm, block index, requests) in the order the worker runs them."""
        n = len(self.load.levels)
        if self.interleave == "arm_blocks":
            per = self.load.requests_per_level
            return [(i, "baseline", 0, per) for i in range(n)] + [(i, "candidate", 0, per) for i in range(n)]
        out: list[tuple[int, ArmName, int, int]] = []
        for i in range(n):
            order: tuple[ArmName, ArmName] = (
                ("baseline", "candidate") if i % 2 == 0 else ("candidate", "baseline")
            )
            first, second = order
            for j, size in enumerate(self.block_sizes(i)):
                pair: tuple[ArmName, ArmName] = (first, second) if j % 2 == 0 else (second, first)
                out += [(i, pair[0], j, size), (i, pair[1], j, size)]
        return out


class Segment(_Model):
    """One (level, arm) piece of the run, in the order it ran."""

    level_index: int = Field(ge=0, lt=MAX_LEVELS)
    arm: ArmName
    started_at: datetime
    finished_at: datetime
    block: int | None = Field(
        default=None, ge=0, lt=MAX_BLOCKS, description="alternating_blocks: which block of the level"
    )
    requests: int | None = Field(default=None, ge=0, le=MAX_REQUESTS_PER_LEVEL)


ARMS: tuple[ArmName, ArmName] = ("baseline", "candidate")


class RunOutcomeHeader(_Model):
    """The upload's envelope: everything but the two arms' results."""

    spec_version: Literal[1] = 1
    run_id: int = Field(ge=1, le=INT64_MAX)
    attempt: int = Field(ge=1, le=MAX_ATTEMPTS)
    agent_version: str = Field(max_length=32)
    order: list[Segment] = Field(min_length=2, max_length=2 * MAX_LEVELS * MAX_BLOCKS)


class RunOutcome(RunOutcomeHeader):
    """What a worker uploads to `PUT /api/v1/runs/{id}/result`: one harness result per
    arm (result schema 2; schema 1 is still accepted), its levels in the spec's level
    order, and the order the pieces ran in."""

    baseline: BenchResult
    candidate: BenchResult


@dataclass(frozen=True)
class CheckedOutcome:
    """An upload that passed `validate_outcome_stream`: its envelope and each arm's header."""

    header: RunOutcomeHeader
    arms: dict[str, BenchHeader]


def validate_outcome_stream(payload: Any, *, context: dict[str, Any] | None = None) -> CheckedOutcome:
    """`RunOutcome.model_validate`'s rules, one request at a time (worker.harness.validate);
    a ValidationError with every problem's path otherwise."""
    errors: list[InitErrorDetails] = []
    header: RunOutcomeHeader | None = None
    arms: dict[str, BenchHeader] = {}
    if not isinstance(payload, dict):
        RunOutcome.model_validate(payload)  # raises: not an object
    envelope = {k: v for k, v in payload.items() if k not in ARMS}
    try:
        header = RunOutcomeHeader.model_validate(envelope, context=context)
    except ValidationError as exc:
        errors += [{**e, "loc": tuple(e["loc"])} for e in exc.errors()]  # type: ignore[typeddict-unknown-key]
    for arm in ARMS:
        if arm not in payload:
            errors.append({"type": "missing", "loc": (arm,), "input": envelope})
            continue
        try:
            arms[arm] = validate_result_stream(payload[arm], context=context, prefix=(arm,))
        except ValidationError as exc:
            errors += exc.errors()  # type: ignore[arg-type]
    if errors:
        raise ValidationError.from_exception_data(
            "RunOutcome",
            [{k: v for k, v in e.items() if k in ("type", "loc", "input", "ctx")} for e in errors],  # type: ignore[misc]
        )
    assert header is not None
    return CheckedOutcome(header, arms)


class _Envelope(BaseModel):
    """The part every spec version shares (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    spec_version: int
    run_id: Annotated[int, Field(ge=1, le=INT64_MAX)]
    attempt: Annotated[int, Field(ge=1, le=MAX_ATTEMPTS)]


class SpecRefused(Exception):
    """This worker cannot run the message. `run_id`/`attempt` are set when the envelope
    could be read, so the refusal can be reported against the run."""

    def __init__(self, reason: str, run_id: int | None = None, attempt: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.run_id = run_id
        self.attempt = attempt


def parse_spec(raw: str | bytes | dict[str, Any]) -> RunSpec:
    """Read a task message into a RunSpec, or raise SpecRefused saying why in words."""
    try:
        data = json.loads(raw) if isinstance(raw, (str, bytes)) else raw
    except ValueError as exc:
        raise SpecRefused(f"the run specification is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise SpecRefused("the run specification is not a JSON object")
    try:
        envelope = _Envelope.model_validate(data)
    except ValidationError as exc:
        raise SpecRefused(f"the run specification has no readable envelope: {_first_errors(exc)}") from None
    if envelope.spec_version not in SUPPORTED_SPEC_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_SPEC_VERSIONS)
        raise SpecRefused(
            f"this worker reads run specification version {supported}; the run was sent version "
            f"{envelope.spec_version}. Upgrade the worker (or the control plane) so they agree.",
            envelope.run_id,
            envelope.attempt,
        )
    try:
        return RunSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecRefused(
            f"the run specification is invalid for version {envelope.spec_version}: {_first_errors(exc)}",
            envelope.run_id,
            envelope.attempt,
        ) from None


def _first_errors(exc: ValidationError, limit: int = 3) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:limit]]
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def spec_json_schema() -> dict[str, Any]:
    return RunSpec.model_json_schema()
