"""What every part of a result shares: the bounds of what it can hold, the strict base model,
and the tolerance aggregates are checked against the requests with."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# Bounds of what a result can hold: beyond them a number is a bug or an attack, and the
# database (bigint, int columns) or the harness's arrays could not hold it.
MAX_TOKENS = 1_000_000  # output tokens of one request (RunSpec.max_tokens has the same bound)
MAX_TOKEN_ID = 2**31 - 1
MAX_OFFSET_US = 7 * 24 * 3600 * 10**6  # a week, in microseconds
MAX_REQUESTS = 10_000_000
MAX_TEXT = 1_000_000
MAX_PROMPT_TOKENS = 10_000_000  # a long conversation with its history, as the engine counts it

NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0, le=MAX_REQUESTS)]
Name = Annotated[str, Field(max_length=500)]
# Aggregates are recomputed from the requests on validation; JSON round-trips floats
# exactly, so this tolerance only absorbs summation order.
_REL_TOL = 1e-6
_ABS_TOL = 1e-6


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)
