"""What the measurements recommend for the lane, with the evidence behind it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from scipy.stats import norm

from advice_app.strategy.arms import Cells
from advice_app.strategy.types import BASELINE, Candidate
from advice_app.strategy.values import Comparison, compare_with_leader, value_of
from benchmarks_app.gate.crossover import find_crossover
from benchmarks_app.gate.result import Crossover

if TYPE_CHECKING:
    from advice_app.strategy.advisor import Advisor

Verdict = Literal["candidate", "cant_tell", "speculation_off"]


@dataclass(frozen=True)
class Dropped:
    candidate: Candidate
    reason: str
    n: int  # requests per cell when it was dropped


@dataclass(frozen=True)
class ScheduleStep:
    """From concurrency `from_level` up, run `candidate` (BASELINE: speculation off)."""

    from_level: float
    candidate: Candidate

    @property
    def tokens(self) -> int:
        return self.candidate.tokens


@dataclass(frozen=True)
class Separation:
    """A candidate the chosen one can't be told from, and what would separate them."""

    other: Candidate
    ratio: float  # the leader's value over the other's
    ci_low: float
    ci_high: float
    n: int  # requests per cell behind it
    requests_per_cell: int | None  # None: no difference seen, no finite number separates them


@dataclass(frozen=True)
class Recommendation:
    lane: str
    verdict: Verdict
    chosen: Candidate | None  # None: speculation off
    value: float | None  # geometric mean speedup over the levels (values.py)
    value_ci: tuple[float, float] | None
    crossover: Crossover | None  # the gate's crossover of the chosen candidate
    schedule: tuple[ScheduleStep, ...]
    tied: tuple[Separation, ...]
    dropped: tuple[Dropped, ...]
    confidence: float
    requests_spent: int
    budget: int
    finished: bool  # False: the budget or the records end before the advisor would stop
    summary: str
    # Why the advisor stopped measuring, in words; None while it measures, and when the
    # budget ran out first: then the answer is what it had seen, not what it decided.
    stopped: str | None = None


def recommend(
    adv: Advisor,
    cells: Cells,
    alive: Sequence[Candidate],
    dropped: list[Dropped],
    *,
    finished: bool,
    stopped: str | None = None,
) -> Recommendation:
    alpha = adv.alpha_look
    values, out = [], list(dropped)
    for c in alive:
        est = adv.estimator(cells, c)
        reason = adv.drop_reason(cells, c, None, alpha) or _point_breaks(adv, est)
        if reason is not None:
            out.append(Dropped(c, reason, cells.count(c, adv.levels[0])))
        elif not adv._beats_baseline(cells, c, None, alpha):
            out.append(Dropped(c, _not_beating(adv), cells.count(c, adv.levels[0])))
        elif (v := value_of(c, est, adv.lane, adv.levels, adv.metric)) is not None:
            values.append(v)
    common = {
        "lane": adv.lane,
        "dropped": tuple(out),
        "confidence": 1 - alpha,
        "requests_spent": adv.spent,
        "budget": adv.budget,
        "finished": finished,
        "stopped": stopped,
    }
    if not values:
        return Recommendation(
            verdict="speculation_off",
            chosen=None,
            value=None,
            value_ci=None,
            crossover=None,
            schedule=(ScheduleStep(adv.levels[0], BASELINE),),
            tied=(),
            summary=f"Lane {adv.lane}: speculation off: no candidate beats the baseline within the rules.",
            **common,  # type: ignore[arg-type]
        )
    leader = max(values, key=lambda v: (v.point, -v.candidate.assets, v.candidate.name))
    comps = compare_with_leader(
        leader, [v for v in values if v is not leader], adv.metric, 1 - adv.alpha_pair, adv.key(adv.levels[0])
    )
    close = [c for c in comps if not c.confirmed]
    tied_set = [leader.candidate, *(c.other for c in close)]
    chosen = min(tied_set, key=lambda c: (c.assets, c.name))
    tied = tuple(_separation(c, adv.alpha_pair) for c in close)
    if chosen != leader.candidate:
        # Report the ties from the chosen one's side: the leader is what it can't be told from.
        by = next(c for c in close if c.other == chosen)
        tied = (
            Separation(leader.candidate, by.ratio, by.ci_low, by.ci_high, by.n, _needed(by, adv.alpha_pair)),
            *(s for s in tied if s.other != chosen),
        )
    chosen_value = next(v for v in values if v.candidate == chosen)
    est = adv.estimator(cells, chosen)
    crossover = find_crossover(est, adv.lane, "concurrency", list(adv.levels), adv.metric, adv.confidence)
    schedule = _schedule(adv, cells, chosen, crossover)
    verdict: Verdict = "cant_tell" if tied else "candidate"
    lo, hi = chosen_value.interval(alpha)
    words = (
        f"{chosen.name} ({chosen.method}, {chosen.tokens} tokens), "
        f"{chosen_value.point:.3f}x [{lo:.3f}, {hi:.3f}]"
    )
    if tied:
        others = ", ".join(s.other.name for s in tied)
        words = f"can't tell {chosen.name} from {others}: the cheaper, " + words
    return Recommendation(
        verdict=verdict,
        chosen=chosen,
        value=chosen_value.point,
        value_ci=(lo, hi),
        crossover=crossover,
        schedule=schedule,
        tied=tied,
        summary=f"Lane {adv.lane}: {words}. Crossover: {crossover.reason}{_memory_words(adv, cells, chosen)}",
        **common,  # type: ignore[arg-type]
    )


def _memory_words(adv: Advisor, cells: Cells, chosen: Candidate) -> str:
    """The headroom rule as far as it was shown: a chosen candidate whose engine reported no
    headroom is not said to meet it (the release's gate will call it marginal)."""
    required = adv.rules.memory_headroom_min_gib
    if required is None:
        return ""
    headroom = cells.headroom(chosen)
    asks = f"the contract asks at least {required:g} GiB"
    if headroom is None:
        return f" Memory headroom: not reported by the engine, so not checked ({asks})."
    return f" Memory headroom: {headroom:.1f} GiB (the least measured); {asks}."


def _point_breaks(adv: Advisor, est: object) -> str | None:
    """A non-inferiority rule the point estimate breaks (not confirmed at the bound, but
    the rules hold a recommendation to its estimate: the gate would not pass it)."""
    for rule in adv.rules.non_inferiority:
        for lv in adv._in_scope(rule):
            e = est.get(adv.key(lv), rule.metric)  # type: ignore[attr-defined]
            if e.problem is None and 1 / e.estimate > rule.bound:
                return (
                    f"{rule.rule_id} ({rule.describe()}): {1 / e.estimate:.3f}x of baseline at "
                    f"concurrency {lv:g}, above {rule.bound:g}x (estimate; not confirmed either way)"
                )
    return None


def _not_beating(adv: Advisor) -> str:
    return (
        f"does not beat the baseline at any level in scope: no {adv.metric} improvement with its "
        f"{1 - adv.alpha_look:.2%} lower bound at or above {adv.bound:g}x and above 1x"
    )


def _needed(c: Comparison, alpha: float) -> int | None:
    """Requests per cell for the ratio's interval to clear 1, if the difference is what was
    seen: the interval's half-width shrinks as 1/sqrt(n)."""
    diff = abs(math.log(c.ratio)) if c.ratio > 0 else 0.0
    se = float(c.log_draws.std())
    if diff <= 0 or not math.isfinite(se):
        return None
    return math.ceil(c.n * (float(norm.ppf(1 - alpha)) * se / diff) ** 2)


def _separation(c: Comparison, alpha: float) -> Separation:
    return Separation(c.other, c.ratio, c.ci_low, c.ci_high, c.n, _needed(c, alpha))


def _schedule(
    adv: Advisor, cells: Cells, chosen: Candidate, crossover: Crossover
) -> tuple[ScheduleStep, ...]:
    """Below the crossover, the chosen candidate; from it up, a candidate of the same method
    with fewer tokens where that one still beats the baseline, else speculation off."""
    steps = [ScheduleStep(adv.levels[0], chosen)]
    if crossover.level is None or not chosen.schedulable:
        return tuple(steps)
    fewer = sorted(
        (c for c in adv.candidates if c.method == chosen.method and c.tokens < chosen.tokens),
        key=lambda c: -c.tokens,
    )
    ests = {c: adv.estimator(cells, c) for c in fewer}
    for lv in (lv for lv in adv.levels if lv >= crossover.level):
        run = BASELINE
        for c in fewer:
            e = ests[c].get(adv.key(lv), adv.metric)
            if e.problem is None and e.interval(1 - adv.confidence)[0] > 1.0:
                run = c
                break
        if run != steps[-1].candidate:
            steps.append(ScheduleStep(lv, run))
    return tuple(steps)
