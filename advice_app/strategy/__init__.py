"""The advisor's strategy: pure Python (numpy/scipy and the gate; no Django, no Celery).

Drive it: ``adv = Advisor(candidates, levels, GateRules.from_measurement(m), budget, seed)``;
``while batch := adv.next_batch(): for r in batch: adv.record(r.candidate, r.level,
measure(r))``; then ``adv.recommendation()``. Store ``adv.records`` to resume:
``Advisor(..., records=stored)`` is in the same state. One advisor per lane.
"""

from advice_app.strategy.advisor import Advisor
from advice_app.strategy.recommend import Dropped, Recommendation, ScheduleStep, Separation
from advice_app.strategy.types import BASELINE, Candidate, Record, Request, Samples

__all__ = [
    "BASELINE",
    "Advisor",
    "Candidate",
    "Dropped",
    "Recommendation",
    "Record",
    "Request",
    "Samples",
    "ScheduleStep",
    "Separation",
]
