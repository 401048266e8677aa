"""Writes of advice runs: keyword-only functions in a transaction that raise DomainError."""

from advice_app.services.handover import Draft, advice_draft_create, advice_propose
from advice_app.services.runs import (
    advice_cancel,
    advice_run_create,
    advice_run_finished,
    advice_runs_left_behind,
)

__all__ = [
    "Draft",
    "advice_cancel",
    "advice_draft_create",
    "advice_propose",
    "advice_run_create",
    "advice_run_finished",
    "advice_runs_left_behind",
]
