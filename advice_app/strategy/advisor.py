"""The advisor: what to measure next on one lane, and what the measurements recommend.

Successive halving with sequential tests on the gate's own statistics. Every candidate
and the baseline are measured at every level of the lane, `n_start` requests per cell;
then, at each look, the candidates that are clearly worse are dropped and the rest (with
the baseline) are measured to twice as many requests, up to `n_max` per cell
(`n_start × 2^(looks-1)`). Dropped, at a look:

- a candidate that breaks a non-inferiority rule (the worsening's lower bound above the
  rule's bound at a level in its scope) or fails more requests than the gate allows;
- a candidate slower than the baseline at every level in the improve rule's scope (the
  improvement's upper bound below the rule's bound);
- a candidate whose value (values.py) is below the leader's, by Holm's step-down over
  the family of "leader better than X" tests (holm.py), two-sided (the leader is chosen
  after seeing the data).

Each look tests at `alpha / looks` (alpha = 1 - the improve rule's confidence): a
Bonferroni split over the looks, so that looking repeatedly keeps the chance of ever
dropping a candidate that is not worse within alpha. Measuring stops early when one
candidate is left and it beats the baseline somewhere, or when the leader and every
candidate still in play are within `equivalence` of each other (their value ratio's
interval inside [1/(1+e), 1+e]): the answer is then "can't tell" and measuring more would
not change what runs. The budget (requests, both arms) caps it all.

A pure function of the recorded batches: each look uses only the first `target`
requests of each cell (arms.py), so replaying the same records, in the same order, gives
the same looks, drops and next batch: that is how a run resumes after a worker loss.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from advice_app.strategy.arms import Cells
from advice_app.strategy.recommend import Dropped, Recommendation, recommend
from advice_app.strategy.types import BASELINE, Candidate, Record, Request, Samples
from advice_app.strategy.values import compare_with_leader, value_of
from benchmarks_app.gate.estimates import Estimator, Key
from benchmarks_app.gate.inputs import ArmLevel
from benchmarks_app.gate.result import Verdict
from benchmarks_app.gate.rules import DEFAULT_CONFIDENCE, GateRules, StatRule
from benchmarks_app.gate.sample_size import requests_needed_for

MIN_SAMPLES = 5  # the gate's default per arm (evaluate_gate)
MAX_ERROR_RATE = 0.05  # the gate's default


@dataclass(frozen=True)
class Look:
    target: int  # requests per cell this look saw
    alive: tuple[Candidate, ...]  # in play after it
    stop: str | None  # why measuring stopped here (None: it goes on)


class Advisor:
    def __init__(
        self,
        candidates: Sequence[Candidate],
        levels: Sequence[float],
        rules: GateRules,
        budget: int,
        seed: int,
        *,
        lane: str = "default",
        looks: int = 4,
        n_start: int | None = None,
        equivalence: float = 0.04,
        n_boot: int = 2000,
        records: Sequence[Record] = (),
    ) -> None:
        self.candidates = _check_candidates(candidates)
        self.levels = _check_levels(levels)
        if not isinstance(rules, GateRules):
            raise ValueError("rules must be GateRules (GateRules.from_measurement(contract['measurement']))")
        self.rules = rules
        if isinstance(looks, bool) or not isinstance(looks, int) or not 1 <= looks <= 10:
            raise ValueError("looks must be a whole number from 1 to 10")
        if not 0 <= equivalence < 1:
            raise ValueError("equivalence must be in [0, 1)")
        if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 100:
            raise ValueError("n_boot must be at least 100")
        self.lane, self.seed, self.looks, self.equivalence, self.n_boot = (
            lane,
            seed,
            looks,
            equivalence,
            n_boot,
        )
        self.metric = rules.primary_metric
        self.improve = rules.improve[0] if rules.improve else None
        self.bound = self.improve.bound if self.improve else 1.0
        self.confidence = self.improve.confidence if self.improve else DEFAULT_CONFIDENCE
        self.alpha_look = (1 - self.confidence) / looks
        # The leader is picked after seeing the data, so "leader better than X" is tested
        # in whichever direction the data point: each side gets half (a two-sided test).
        self.alpha_pair = self.alpha_look / 2
        # Each arm needs enough requests for the order statistics to bound every rule's
        # quantile at a look's confidence (sample_size.py), so no look is undecided by size.
        needed = max(
            [MIN_SAMPLES]
            + [requests_needed_for(r.metric, 1 - self.alpha_look) or 0 for r in rules.stat_rules]
        )
        if n_start is None:
            n_start = max(16, needed)
        if isinstance(n_start, bool) or not isinstance(n_start, int) or n_start < needed:
            raise ValueError(f"n_start must be a whole number >= {needed} (what the rules' quantiles need)")
        self.n_start = n_start
        self.n_max = n_start * 2 ** (looks - 1)
        first_round = (len(self.candidates) + 1) * len(self.levels) * n_start
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < first_round:
            raise ValueError(
                f"budget must be a whole number of requests >= {first_round}: the first round measures "
                f"{len(self.candidates)} candidates and the baseline at {len(self.levels)} levels, "
                f"{n_start} requests each"
            )
        self.budget = budget
        self._records: list[Record] = []
        # Caches of what the records determine (records only grow): the looks taken, and
        # each (candidate, prefix) estimator, so a look's draws are computed once.
        self._looks: list[Look] = []
        self._estimators: dict[tuple[Candidate, int | None, int], Estimator] = {}
        for r in records:
            self.record(r.candidate, r.level, r.samples)

    # -- the caller's side -------------------------------------------------------------

    @property
    def records(self) -> tuple[Record, ...]:
        """Everything recorded, in order: store it; `Advisor(..., records=...)` resumes."""
        return tuple(self._records)

    @property
    def spent(self) -> int:
        return sum(r.samples.n_requests for r in self._records)

    def next_batch(self) -> list[Request]:
        """What to measure now (empty: done). Asking again before recording returns the
        same requests; recording part of them leaves the rest."""
        cells, looks = self._replay()
        if looks and looks[-1].stop is not None:
            return []
        target, alive = self._next_target(cells, looks)
        if target is None:
            return []
        return self._deficits(cells, alive, target)

    def record(self, candidate: Candidate, level: float, samples: Samples) -> None:
        if candidate != BASELINE and candidate not in self.candidates:
            raise ValueError(f"unknown candidate {candidate.name!r}")
        if float(level) not in self.levels:
            raise ValueError(f"level {level!r} is not one of the lane's levels {list(self.levels)}")
        if not isinstance(samples, Samples):
            raise ValueError("samples must be Samples")
        self._records.append(Record(candidate, float(level), samples))

    def recommendation(self) -> Recommendation:
        cells, looks = self._replay()
        dropped = self._dropped(cells, looks)
        done = bool(looks and looks[-1].stop is not None) or self._next_target(cells, looks)[0] is None
        alive = looks[-1].alive if looks else self.candidates
        stopped = looks[-1].stop if looks else None
        return recommend(self, cells, alive, dropped, finished=done, stopped=stopped)

    # -- the looks ---------------------------------------------------------------------

    def _replay(self) -> tuple[Cells, list[Look]]:
        """Every look the records allow, from the start: a function of the records only."""
        cells = Cells(self.lane, self._records)
        # A look at `target` saw only each cell's first `target` requests, which later
        # records don't change: the looks already taken stand.
        looks = self._looks
        while True:
            target, alive = self._next_target(cells, looks)
            if target is None or self._deficits(cells, alive, target):
                return cells, looks
            looks.append(self._look(cells, alive, target, len(looks)))
            if looks[-1].stop is not None:
                return cells, looks

    def _next_target(self, cells: Cells, looks: list[Look]) -> tuple[int | None, tuple[Candidate, ...]]:
        if not looks:
            return self.n_start, self.candidates
        last = looks[-1]
        if last.stop is not None or last.target >= self.n_max:
            return None, last.alive
        target = min(2 * last.target, self.n_max)
        spent = self.spent
        need = sum(max(target - cells.count(c, lv), 0) for c in (BASELINE, *last.alive) for lv in self.levels)
        if spent + need > self.budget:
            # What the budget still buys: the same number more in every cell in play.
            n_cells = (len(last.alive) + 1) * len(self.levels)
            target = last.target + (self.budget - spent) // n_cells
            if target <= last.target:
                return None, last.alive
        return target, last.alive

    def _deficits(self, cells: Cells, alive: Sequence[Candidate], target: int) -> list[Request]:
        out = []
        for c in (BASELINE, *alive):
            for lv in self.levels:
                if (n := target - cells.count(c, lv)) > 0:
                    out.append(Request(c, lv, n))
        return out

    def estimator(self, cells: Cells, candidate: Candidate, first: int | None = None) -> Estimator:
        # Keyed by how much was recorded too when it reads every request (first=None).
        memo = (candidate, first, len(self._records) if first is None else 0)
        if memo not in self._estimators:
            self._estimators[memo] = self._estimator(cells, candidate, first)
        return self._estimators[memo]

    def _estimator(self, cells: Cells, candidate: Candidate, first: int | None) -> Estimator:
        def arms(c: Candidate) -> dict[Key, ArmLevel]:
            out: dict[Key, ArmLevel] = {}
            for lv in self.levels:
                if (a := cells.arm(c, lv, first)) is not None:
                    out[a.key] = a
            return out

        return Estimator(
            arms(BASELINE),
            arms(candidate),
            seed=self.seed,
            n_boot=self.n_boot,
            min_samples=MIN_SAMPLES,
            max_error_rate=MAX_ERROR_RATE,
        )

    def key(self, level: float) -> Key:
        return (self.lane, "concurrency", level)

    def drop_reason(self, cells: Cells, candidate: Candidate, first: int | None, alpha: float) -> str | None:
        """Why a candidate is out, by the rules alone, on the first `first` requests of each
        cell (None: it stays)."""
        return self.memory_reason(cells, candidate, first) or self._rules_reason(
            self.estimator(cells, candidate, first), alpha
        )

    def memory_reason(self, cells: Cells, candidate: Candidate, first: int | None) -> str | None:
        """The contract's memory headroom rule, as the gate checks it (deterministic.py): a
        measured headroom below the bound is out; an unreported one is not decided here (the
        recommendation says it was not reported)."""
        required = self.rules.memory_headroom_min_gib
        headroom = cells.headroom(candidate, first)
        if required is None or headroom is None or headroom >= required:
            return None
        return f"memory headroom {headroom:.1f} GiB, below the contract's {required:g} GiB"

    def _rules_reason(self, estimator: Estimator, alpha: float) -> str | None:
        for rule in self.rules.non_inferiority:
            for lv in self._in_scope(rule):
                e = estimator.get(self.key(lv), rule.metric)
                if e.problem is not None:
                    if e.problem_verdict is Verdict.FAIL:
                        return e.problem
                    continue
                r_lo, r_hi = e.interval(alpha)
                if 1 / r_hi > rule.bound:
                    return (
                        f"breaks {rule.rule_id} ({rule.describe()}): {1 / e.estimate:.3f}x of baseline "
                        f"[{1 / r_hi:.3f}, {1 / r_lo:.3f}] at concurrency {lv:g}"
                    )
        scope = self._in_scope(self.improve) if self.improve else list(self.levels)
        ests = [estimator.get(self.key(lv), self.metric) for lv in scope]
        for e in ests:
            if e.problem is not None and e.problem_verdict is Verdict.FAIL:
                return e.problem
        his = [e.interval(alpha)[1] for e in ests if e.problem is None]
        if his and len(his) == len(ests) and max(his) < self.bound:
            return (
                f"no better than the baseline at any level in scope: {self.metric} improvement at most "
                f"{max(his):.3f}x (upper bound) where {self.bound:g}x is needed"
            )
        return None

    def _in_scope(self, rule: StatRule | None) -> list[float]:
        return [lv for lv in self.levels if rule is None or rule.applies_to("concurrency", lv)]

    def _look(self, cells: Cells, alive: Sequence[Candidate], target: int, index: int) -> Look:
        kept: list[Candidate] = []
        values = []
        for c in alive:
            est = self.estimator(cells, c, target)
            if self.drop_reason(cells, c, target, self.alpha_look) is not None:
                continue
            if (v := value_of(c, est, self.lane, self.levels, self.metric)) is not None:
                values.append(v)
            kept.append(c)
        stop = None
        if values:
            leader = max(values, key=lambda v: (v.point, -v.candidate.assets, v.candidate.name))
            others = [v for v in values if v is not leader]
            comps = compare_with_leader(
                leader, others, self.metric, 1 - self.alpha_pair, self.key(self.levels[0])
            )
            beaten = {c.other for c in comps if c.confirmed}
            kept = [c for c in kept if c not in beaten]
            close = [c for c in comps if not c.confirmed]
            e = self.equivalence
            if len(kept) == 1 and self._beats_baseline(cells, kept[0], target, self.alpha_look):
                stop = "one candidate left, and it beats the baseline"
            elif close and all(1 / (1 + e) <= c.ci_low and c.ci_high <= 1 + e for c in close):
                stop = f"the candidates left are within {e:.0%} of each other"
        if not kept:
            stop = "no candidate left"
        elif stop is None and target >= self.n_max:
            stop = f"{self.n_max} requests per cell: the precision cap"
        return Look(target, tuple(kept), stop)

    def _beats_baseline(self, cells: Cells, c: Candidate, first: int | None, alpha: float) -> bool:
        est = self.estimator(cells, c, first)
        scope = self._in_scope(self.improve) if self.improve else list(self.levels)
        for lv in scope:
            e = est.get(self.key(lv), self.metric)
            if e.problem is None and e.interval(alpha)[0] >= self.bound and e.interval(alpha)[0] > 1.0:
                return True
        return False

    def _dropped(self, cells: Cells, looks: list[Look]) -> list[Dropped]:
        """Each dropped candidate with its reason, as at the look that dropped it."""
        out: list[Dropped] = []
        alive: tuple[Candidate, ...] = self.candidates
        for look in looks:
            for c in alive:
                if c in look.alive:
                    continue
                reason = self.drop_reason(cells, c, look.target, self.alpha_look)
                if reason is None:
                    reason = self._slower_reason(cells, c, alive, look)
                out.append(Dropped(c, reason, look.target))
            alive = look.alive
        return out

    def _slower_reason(self, cells: Cells, c: Candidate, alive: Sequence[Candidate], look: Look) -> str:
        vals = {}
        for a in alive:
            est = self.estimator(cells, a, look.target)
            if self.drop_reason(cells, a, look.target, self.alpha_look) is not None:
                continue
            if (v := value_of(a, est, self.lane, self.levels, self.metric)) is not None:
                vals[a] = v
        leader = max(vals.values(), key=lambda v: (v.point, -v.candidate.assets, v.candidate.name))
        comp = next(
            x
            for x in compare_with_leader(
                leader,
                [v for v in vals.values() if v is not leader],
                self.metric,
                1 - self.alpha_pair,
                self.key(self.levels[0]),
            )
            if x.other == c
        )
        return (
            f"clearly slower than {leader.candidate.name}: its value ({self.metric} speedup over the levels) "
            f"is {comp.ratio:.3f}x lower [{comp.ci_low:.3f}, {comp.ci_high:.3f}] after {look.target} "
            f"requests per cell (Holm, two-sided {1 - self.alpha_look:.2%} per look)"
        )


def _check_candidates(candidates: Sequence[Candidate]) -> tuple[Candidate, ...]:
    if isinstance(candidates, str | bytes) or not isinstance(candidates, Sequence):
        raise ValueError("candidates must be a list of Candidate")
    if not candidates:
        raise ValueError("no candidates: give at least one speculation configuration to try")
    out = tuple(candidates)
    if not all(isinstance(c, Candidate) for c in out):
        raise ValueError("candidates must be Candidate objects")
    if any(c.method == BASELINE.method for c in out):
        raise ValueError("the baseline (speculation off) is always measured: don't list it as a candidate")
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise ValueError("candidate names must be unique")
    return out


def _check_levels(levels: Sequence[float]) -> tuple[float, ...]:
    if isinstance(levels, str | bytes) or not isinstance(levels, Sequence) or not levels:
        raise ValueError("levels: give the lane's concurrency levels (at least one)")
    out = []
    for lv in levels:
        if isinstance(lv, bool) or not isinstance(lv, int | float) or not math.isfinite(lv) or lv <= 0:
            raise ValueError(f"levels must be positive numbers, not {lv!r}")
        out.append(float(lv))
    if len(set(out)) != len(out):
        raise ValueError("levels must not repeat")
    return tuple(sorted(out))
