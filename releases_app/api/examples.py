"""Request and response examples for the release endpoints' OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

PROPOSE = OpenApiExample(
    "Propose version 4 of a route",
    value={"route": "contract-summaries", "candidate_version": 4, "reason": "n-gram 4 → 6 tokens"},
    request_only=True,
)
PROPOSED = OpenApiExample(
    "A route-identity change: benchmarking until the gate speaks",
    value={
        "id": 7,
        "route": "contract-summaries",
        "state": "benchmarking",
        "baseline_version": 3,
        "candidate_version": 4,
        "proposed_by": "ci-pipeline",
        "gate_verdict": None,
        "failure_reason": "",
        "lock_version": 1,
        "etag": '"release-7-v1"',
    },
    response_only=True,
    status_codes=["201"],
)
APPROVE = OpenApiExample(
    "Approve a passed gate", value={"reason": "p50 TPOT 1.8× on extraction"}, request_only=True
)
OVERRIDE = OpenApiExample(
    "Approve a failed gate with an override",
    value={
        "reason": "accepting the TTFT regression",
        "override": True,
        "justification": "TTFT p95 +4% is within the lane's SLO; the speedup is needed for the launch.",
    },
    request_only=True,
)
DECIDE = OpenApiExample(
    "A reason for the record", value={"reason": "superseded by version 5"}, request_only=True
)
