"""The checklist's shapes and the words and links its answers share."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from contracts_app.models import ContractVersion, Route

QUESTIONS = (
    "Which speculation method is active on this route right now?",
    "Does the route depend on a second model, Medusa heads, or prompt-lookup heuristics?",
    "Are tokenizer compatibility and batching limits documented?",
    "Which tasks is the method approved for, and which are excluded?",
    "Were the latency gains measured on the real workload lane or only on a demo prompt?",
    "What is the rollback plan if the speedup changes production behaviour?",
)


STATUS_WORDS = {
    "documented": "documented",
    "partial": "partly",
    "missing": "missing",
    "measured": "measured",
    "demo_only": "demo prompt only",
    "not_measured": "not measured",
    "not_applicable": "not applicable",
}


# What an evidence link points at (the API's `kind` enum is this list).
EVIDENCE_KINDS = ("contract_field", "run", "release", "audit_event", "endpoints")


@dataclass(frozen=True)
class Evidence:
    kind: str  # one of EVIDENCE_KINDS
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


def field_evidence(route: Route, version: ContractVersion, section: str, label: str) -> Evidence:
    url = reverse("version-detail", args=[route.slug, version.number]) + f"#field-{section}"
    return Evidence("contract_field", f"v{version.number} {label}", url)


def audit_url(**filters: Any) -> str:
    """The audit page filtered (the audit page's filters: route, action, actor, object)."""
    return "/audit/?" + urlencode({k: v for k, v in filters.items() if v})


def join_words(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
