"""Is an uploaded result possible for this run? The harness's own models check each arm's
numbers (non-negative latencies, chunk sums, aggregates that match their requests, no more
tokens than max_tokens); here the result is also held against the run's specification:
the same run and attempt, every (level, arm) once (once per block when the arms alternate
in blocks), the levels and limits it was sent, and
what it was measured with: the spec's seed, its sampling (when the spec fixes one; null
leaves it to the lane's workload) and its registered workload's digest (when it names one).
A result measured on other prompts or settings is not evidence for this run.

The upload is checked one request at a time (`worker.spec.validate_outcome_stream`): a
result of 100,000 requests is never held as models, only as its parsed JSON."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from benchmarks_app.models import Run
from kernel.errors import DomainError, FieldError, field_errors
from worker.harness.results.result import BenchHeader
from worker.spec import ARMS, CheckedOutcome, RunSpec, validate_outcome_stream


def _refuse(errors: list[FieldError]) -> DomainError:
    return DomainError("The result is malformed or impossible; nothing was stored.", errors=errors)


def check_outcome(*, run: Run, attempt: int, payload: dict[str, Any]) -> CheckedOutcome:
    spec = RunSpec.model_validate(run.spec)
    try:
        outcome = validate_outcome_stream(payload, context={"max_tokens": spec.max_tokens})
    except ValidationError as exc:
        raise _refuse(field_errors(exc)) from None
    errors: list[FieldError] = []
    if outcome.header.run_id != run.pk:
        errors.append(FieldError("run_id", f"is {outcome.header.run_id}, this is run {run.pk}"))
    if outcome.header.attempt != attempt:
        errors.append(
            FieldError("attempt", f"is {outcome.header.attempt}, the upload says attempt {attempt}")
        )
    expected_order = sorted(spec.order())
    got_order = sorted((s.level_index, s.arm) for s in outcome.header.order)
    if got_order != expected_order:
        what = "once per block" if spec.interleave == "alternating_blocks" else "exactly once"
        errors.append(FieldError("order", f"must list every (level_index, arm) of the spec {what}"))
    for arm in ARMS:
        errors += _check_arm(spec, arm, outcome.arms[arm])
    if errors:
        raise _refuse(errors)
    return outcome


def _measured_as_specified(spec: RunSpec, arm: str, result: BenchHeader) -> list[FieldError]:
    """The worker copies these from the spec (worker/agent/execute.py `_plan`,
    `_whole_workload`; worker/harness/runner.py `run_benchmark`)."""
    errors = []
    if result.seed != spec.seed:
        errors.append(FieldError(f"{arm}.seed", f"is {result.seed}, the run's seed is {spec.seed}"))
    if spec.sampling is not None and result.sampling.model_dump() != spec.sampling.model_dump():
        errors.append(
            FieldError(
                f"{arm}.sampling",
                f"is {result.sampling.model_dump()}, the run's sampling is {spec.sampling.model_dump()}",
            )
        )
    if spec.workload.digest is not None and result.workload.digest != spec.workload.digest:
        errors.append(
            FieldError(
                f"{arm}.workload.digest",
                f"is {result.workload.digest!r}, the run's workload is {spec.workload.digest}",
            )
        )
    return errors


def _check_arm(spec: RunSpec, arm: str, result: BenchHeader) -> list[FieldError]:
    errors = _measured_as_specified(spec, arm, result)
    if result.max_tokens != spec.max_tokens:
        errors.append(
            FieldError(f"{arm}.max_tokens", f"is {result.max_tokens}, the run asked for {spec.max_tokens}")
        )
    levels = result.levels
    if len(levels) != len(spec.load.levels):
        errors.append(
            FieldError(f"{arm}.levels", f"has {len(levels)} levels, the run has {len(spec.load.levels)}")
        )
        return errors
    for i, (got, want) in enumerate(zip(levels, spec.load.levels, strict=True)):
        if got.concurrency != want.concurrency or got.rate != want.rate:
            errors.append(
                FieldError(
                    f"{arm}.levels[{i}]", f"is not the run's level {want.model_dump(exclude_none=True)}"
                )
            )
        if got.requests_total > spec.load.requests_per_level:
            errors.append(
                FieldError(
                    f"{arm}.levels[{i}].requests_total",
                    f"{got.requests_total} requests, the run asked for {spec.load.requests_per_level}",
                )
            )
    return errors
