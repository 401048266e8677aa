"""`measurement.workloads.<lane>.dataset`: the one grammar of what a lane measures on.

- `builtin:<lane>`: a prompt set shipped with the worker;
- `workload:<name>@sha256:<64 hex>`: a registered workload, by name and digest (whether
  it exists is the contract version service's check: the format cannot know);
- anything else: a path on the worker's disk (kept from before registered workloads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORKLOAD_NAME_PATTERN = r"[a-z0-9][a-z0-9._-]{0,99}"
_WORKLOAD = re.compile(rf"^workload:({WORKLOAD_NAME_PATTERN})@(sha256:[0-9a-f]{{64}})$")
WORKLOAD_REF_HELP = (
    "a registered workload is workload:NAME@sha256:<64 lowercase hex digits>, NAME being 1-100 "
    "lowercase letters, digits, '.', '_' or '-' (starting with a letter or digit)"
)


@dataclass(frozen=True)
class WorkloadRef:
    name: str
    digest: str

    def __str__(self) -> str:
        return f"workload:{self.name}@{self.digest}"


def is_workload_dataset(text: str) -> bool:
    return text.startswith("workload:")


def parse_workload_ref(text: str) -> WorkloadRef | None:
    """The workload `text` names, or None when it is not of the grammar."""
    match = _WORKLOAD.fullmatch(text)
    return WorkloadRef(match.group(1), match.group(2)) if match else None
