"""Validating an uploaded result one request at a time.

``BenchResult.model_validate`` builds a model for every request of every level: fine for
the harness's own results, not for an upload of 100,000 requests. ``validate_result_stream``
applies the same rules (`RequestRecord`, `LevelHeader.mismatch`, `BenchHeader.request_problem`)
while holding one request at a time and each level's tally (flat arrays), and raises the
same pydantic ``ValidationError`` with the same paths (``levels.1.requests.2.ttft_ms``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import InitErrorDetails

from worker.harness.results.requests import RequestRecord
from worker.harness.results.result import BenchHeader
from worker.harness.tally import LevelTally

# Enough to fix a result by; a broken result of 100,000 requests does not need 100,000.
MAX_ERRORS = 50
Loc = tuple[int | str, ...]


def _details(exc: ValidationError, prefix: Loc) -> list[InitErrorDetails]:
    out: list[InitErrorDetails] = []
    for e in exc.errors():
        detail: InitErrorDetails = {"type": e["type"], "loc": (*prefix, *e["loc"]), "input": e["input"]}
        if e.get("ctx"):
            detail["ctx"] = e["ctx"]
        out.append(detail)
    return out


def value_error(loc: Loc, message: str, value: Any = None) -> InitErrorDetails:
    return {"type": "value_error", "loc": loc, "input": value, "ctx": {"error": ValueError(message)}}


def _without_requests(level: Any) -> Any:
    return {k: v for k, v in level.items() if k != "requests"} if isinstance(level, Mapping) else level


def _check_requests(
    requests: Iterable[Any],
    where: Loc,
    tally: LevelTally,
    header: BenchHeader | None,
    context: dict[str, Any] | None,
    errors: list[InitErrorDetails],
) -> bool:
    """Validate and tally a level's requests; False when any was refused."""
    clean = True
    for j, raw in enumerate(requests):
        if len(errors) >= MAX_ERRORS:
            return False
        loc = (*where, j)
        try:
            record = RequestRecord.model_validate(raw, context=context)
        except ValidationError as exc:
            errors.extend(_details(exc, loc))
            clean = False
            continue
        if header is not None:
            dotted = ".".join(str(p) for p in loc)
            if (problem := header.request_problem(record, dotted)) is not None:
                errors.append(value_error((), problem))
                clean = False
                continue
        tally.add(record)
    return clean


def validate_result_stream(
    data: Any, *, context: dict[str, Any] | None = None, prefix: Loc = ()
) -> BenchHeader:
    """The result's header, once every request and level has been checked; otherwise a
    ValidationError listing what is wrong (at most MAX_ERRORS entries)."""
    errors: list[InitErrorDetails] = []
    levels = data.get("levels") if isinstance(data, Mapping) else None
    header: BenchHeader | None = None
    header_input = (
        {**data, "levels": [_without_requests(lv) for lv in levels]} if isinstance(levels, list) else data
    )
    try:
        header = BenchHeader.model_validate(header_input, context=context)
    except ValidationError as exc:
        errors.extend(_details(exc, ()))
    for i, level in enumerate(levels if isinstance(levels, list) else []):
        requests = level.get("requests") if isinstance(level, Mapping) else None
        if not isinstance(requests, list):
            errors.append(
                {"type": "list_type", "loc": ("levels", i, "requests"), "input": requests}
                if requests is not None
                else {"type": "missing", "loc": ("levels", i, "requests"), "input": level}
            )
            continue
        tally = LevelTally()
        clean = _check_requests(requests, ("levels", i, "requests"), tally, header, context, errors)
        if clean and header is not None and (problem := header.levels[i].mismatch(tally)) is not None:
            errors.append(value_error(("levels", i), problem, _without_requests(level)))
        if len(errors) >= MAX_ERRORS:
            break
    if errors:
        raise ValidationError.from_exception_data(
            "BenchResult", [{**e, "loc": (*prefix, *e["loc"])} for e in errors[:MAX_ERRORS]]
        )
    assert header is not None
    return header
