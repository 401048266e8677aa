"""The advisor against its known truth (issue 24): does it pick the true best candidate per
lane, say "can't tell" on a tie, and spend at most half of an exhaustive sweep?

Run: `.venv/bin/python benchmarks/advisor.py [--trials N] [--seed S] [--json PATH]`.
Each trial runs the advisor on every lane of `tests/support/advice_truth.py` with its own
seed (the engine's draws and the advisor's bootstrap), measuring in process with the
sampler the emulator shares. The exhaustive sweep measures every candidate and the
baseline at every level to the advisor's per-cell cap `n_max` (the precision of the
cells that decide, never below what `sample_size.requests_needed_for` demands at a look's
confidence): the same per-cell precision, on every cell.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advice_app.strategy import Advisor, Recommendation
from benchmarks_app.gate import GateRules
from tests.support import advice_truth as T

BUDGET = 1_000_000  # requests: never the binding limit here, so the rule of stopping is measured


@dataclass(frozen=True)
class Trial:
    lane: str
    seed: int
    correct: bool
    cant_tell: bool
    requests: int
    sweep: int
    chosen: str


def run_lane(lane: str, seed: int, n_boot: int = 2000) -> tuple[Recommendation, Advisor]:
    rules = GateRules.from_measurement(T.MEASUREMENT)
    engine = T.Engine(lane, seed)
    adv = Advisor(T.candidates(lane), T.LEVELS, rules, BUDGET, seed, lane=lane, n_boot=n_boot)
    while batch := adv.next_batch():
        for r in batch:
            adv.record(r.candidate, r.level, engine.measure(r.candidate, r.level, r.n))
    return adv.recommendation(), adv


def trial(lane: str, seed: int, n_boot: int = 2000) -> Trial:
    rec, adv = run_lane(lane, seed, n_boot)
    truth = T.truth(lane)
    sweep = (len(adv.candidates) + 1) * len(adv.levels) * adv.n_max
    return Trial(
        lane,
        seed,
        rec.chosen == truth.best,
        rec.verdict == "cant_tell",
        rec.requests_spent,
        sweep,
        rec.chosen.name if rec.chosen else "off",
    )


def run(trials: int, seed: int, n_boot: int = 2000, lanes: list[str] | None = None) -> list[Trial]:
    return [trial(lane, seed * 100_003 + i, n_boot) for i in range(trials) for lane in lanes or T.LANES]


def summary(results: list[Trial]) -> dict[str, object]:
    lanes: dict[str, object] = {}
    for lane in dict.fromkeys(r.lane for r in results):
        rs = [r for r in results if r.lane == lane]
        truth = T.truth(lane)
        med_adv = statistics.median(r.requests for r in rs)
        med_sweep = statistics.median(r.sweep for r in rs)
        lanes[lane] = {
            "truth": truth.best.name if truth.best else "off",
            "tie": truth.tie,
            "trials": len(rs),
            "correct": sum(r.correct for r in rs) / len(rs),
            "cant_tell": sum(r.cant_tell for r in rs) / len(rs),
            "median_requests": med_adv,
            "median_sweep": med_sweep,
            "ratio": med_adv / med_sweep,
        }
    return {
        "trials": len(results),
        "correct": sum(r.correct for r in results) / len(results),
        "median_requests": statistics.median(r.requests for r in results),
        "median_sweep": statistics.median(r.sweep for r in results),
        "median_ratio": statistics.median(r.requests / r.sweep for r in results),
        "total_ratio": sum(r.requests for r in results) / sum(r.sweep for r in results),
        "lanes": lanes,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--trials", type=int, default=100, help="seeded trials per lane")
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--n-boot", type=int, default=2000)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--lanes", default="", help="comma-separated lanes (default: all)")
    args = p.parse_args()
    start = time.perf_counter()
    results = run(args.trials, args.seed, args.n_boot, [x for x in args.lanes.split(",") if x] or None)
    s = summary(results)
    print(f"advisor vs known truth: seed {args.seed}, {args.trials} trials per lane, n_boot {args.n_boot}")
    print(
        f"{'lane':<10} {'truth':<9} {'correct':>8} {'cant-tell':>9} {'advisor':>8} {'sweep':>7} {'ratio':>6}"
    )
    for lane, row in s["lanes"].items():  # type: ignore[attr-defined]
        print(
            f"{lane:<10} {row['truth'] + (' (tie)' if row['tie'] else ''):<9} {row['correct']:>8.1%} "
            f"{row['cant_tell']:>9.1%} {row['median_requests']:>8.0f} {row['median_sweep']:>7.0f} "
            f"{row['ratio']:>6.1%}"
        )
    print(
        f"all: {s['correct']:.1%} correct over {s['trials']} lane trials; requests (medians) advisor "
        f"{s['median_requests']:.0f} vs sweep {s['median_sweep']:.0f}, median ratio {s['median_ratio']:.1%}, "
        f"total ratio {s['total_ratio']:.1%}; {time.perf_counter() - start:.0f} s"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seed": args.seed, **s}, indent=2))


if __name__ == "__main__":
    main()
