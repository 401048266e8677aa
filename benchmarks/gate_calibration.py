"""How often the gate passes a change that does nothing, and how often it finds a real one.

Run: `.venv/bin/python benchmarks/gate_calibration.py [--pairs N] [--recorded FILE.json …]
[--write-table]` (`make bench` runs it with `--write-table`). Prints, per built-in rule,
the false-pass rate beside the nominal level, the false-fail rate and the power at known
speedups, for each way the samples are made:

- `iid`: independent lognormal requests (a Pareto tail on TTFT), the textbook case.
- `drift+AR(1), interleaved`: a host whose speed drifts over the run (later requests 8%
  faster: caches filling, clocks settling) with AR(1) noise between successive requests
  (φ = 0.6), the arms run in alternating blocks of 8 (A B B A …), as the worker now runs
  them (worker/spec.py `alternating_blocks`).
- `drift+AR(1), sequential`: the same host, the arms one after the other (what
  `abba_per_level` did at a single level): the drift lands on one arm.
- `recorded`: A/A pairs resampled from recorded real samples (`--recorded`: a
  `specpact-worker bench --out` file or a run's uploaded result); circular blocks of 8
  consecutive requests keep their serial structure.

What the rates mean. Every rule is tested at its edge: the gate is scale-equivariant (a
ratio of quantiles or means), so "the candidate is exactly at the bar" is the same test as
an A/A pair against a bar of 1×. False pass: the share of A/A pairs that Pass a bar of 1×
(an `improve` rule: "better at all"; a `non_inferiority` rule: "no worse at all"); the
nominal level is 1 − confidence. False fail: the share that Fail when the rule holds: an
`improve` rule at a true 1.1× speedup with the bar at 1×; a `non_inferiority` rule with
its example margin on A/A pairs (a change that does nothing). Power: the share that Pass
with the bar at 1× (`improve`) or the example margin (`non_inferiority`) at each known
speedup. Each pair is one lane of one gate evaluation with no correction across lanes, so
the real `evaluate_gate` decides every pair.

`--write-table` writes benchmarks_app/gate/calibration.json, the figures the gate's method
notes (and so the release page) quote.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks_app.gate import ArmLevel, GateInput, GateRules, Verdict, evaluate_gate
from benchmarks_app.gate.adapter import arm_levels_from_harness
from benchmarks_app.gate.calibration import TABLE

EFFECTS = (1.1, 1.3, 1.5)
REQUESTS_PER_ARM = 64  # the format's examples plan 32-128 per level; 64 clears p95's 59
BLOCK = 8
DRIFT = -0.08  # log-speed change over the run: later requests 8% faster
AR_PHI = 0.6
AR_SD = 0.10  # stationary sd of the host's log-speed


@dataclass(frozen=True)
class BuiltInRule:
    """A rule as the format's examples write it (contracts/examples/)."""

    label: str
    kind: str  # improve | non_inferiority
    metric: str
    example_bar: float
    confidence: float = 0.95

    def measurement(self, bar: float) -> dict[str, Any]:
        key = "min_ratio" if self.kind == "improve" else "max_ratio"
        return {self.kind: [{"metric": self.metric, key: bar, "confidence": self.confidence}]}

    @property
    def nominal(self) -> float:
        return 1 - self.confidence


BUILT_IN_RULES = (
    BuiltInRule("improve tpot_p50", "improve", "tpot_p50", 1.0),
    BuiltInRule("improve output_tokens_per_s", "improve", "output_tokens_per_s", 1.0),
    BuiltInRule("non_inferiority ttft_p95", "non_inferiority", "ttft_p95", 1.10),
    BuiltInRule("non_inferiority e2e_p95", "non_inferiority", "e2e_p95", 1.10),
)


# --- samples ------------------------------------------------------------------------------


def schedule(n: int, order: str) -> np.ndarray:
    """For 2n request slots in run order, which arm each is (0 baseline, 1 candidate)."""
    if order == "sequential":
        return np.repeat([0, 1], n)
    blocks = -(-n // BLOCK)
    pattern = np.array([0, 1, 1, 0])
    arms = np.repeat(pattern[np.arange(2 * blocks) % 4], BLOCK)
    out = []
    count = [0, 0]
    for a in arms:
        if count[a] < n:
            out.append(a)
            count[a] += 1
    return np.array(out)


def host_log_speed(rng: np.random.Generator, slots: int, pairs: int, drifting: bool) -> np.ndarray:
    """(pairs, slots) log slow-down of the host at each request slot."""
    if not drifting:
        return np.zeros((pairs, slots))
    innov = rng.normal(0, AR_SD * np.sqrt(1 - AR_PHI**2), (pairs, slots))
    h = np.empty_like(innov)
    h[:, 0] = rng.normal(0, AR_SD, pairs)
    for t in range(1, slots):
        h[:, t] = AR_PHI * h[:, t - 1] + innov[:, t]
    return h + DRIFT * np.linspace(0, 1, slots)


def _arm(lane: str, ttft: np.ndarray, tpot: np.ndarray, tokens: np.ndarray) -> ArmLevel:
    e2e = ttft + tpot * (tokens - 1)
    return ArmLevel(
        lane=lane,
        level_kind="concurrency",
        level=1,
        samples={"ttft": ttft, "tpot": tpot, "e2e": e2e},
        output_tokens=tokens,
        e2e_ms=e2e,
        n_requests=len(ttft),
    )


def simulated_pairs(
    rng: np.random.Generator, pairs: int, *, n: int, effect: float, scenario: str
) -> tuple[list[ArmLevel], list[ArmLevel]]:
    """`pairs` independent (baseline, candidate) arms of n requests; the candidate's
    latencies are divided by `effect` (1: an A/A pair). scenario: iid | interleaved | sequential."""
    order = "sequential" if scenario == "sequential" else "interleaved"
    arm_of = schedule(n, order)
    h = host_log_speed(rng, 2 * n, pairs, drifting=scenario != "iid")
    slow = np.exp(h)
    ttft = 200 * (rng.lognormal(0, 0.3, (pairs, 2 * n)) + 0.2 * rng.pareto(2.5, (pairs, 2 * n))) * slow
    tpot = 30 * rng.lognormal(0, 0.2, (pairs, 2 * n)) * slow
    tokens = rng.integers(64, 257, (pairs, 2 * n)).astype(float)
    base, cand = [], []
    b, c = arm_of == 0, arm_of == 1
    for i in range(pairs):
        lane = f"p{i}"
        base.append(_arm(lane, ttft[i, b], tpot[i, b], tokens[i, b]))
        cand.append(_arm(lane, ttft[i, c] / effect, tpot[i, c] / effect, tokens[i, c]))
    return base, cand


def recorded_requests(paths: Sequence[Path]) -> list[ArmLevel]:
    """Every (arm, level) of the recorded results with enough requests, in send order."""
    out = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        results = [data[a] for a in ("baseline", "candidate") if a in data] or [data]
        for res in results:
            out += [lv for lv in arm_levels_from_harness(res, lane="rec") if len(lv.e2e_ms) >= 2 * BLOCK]
    return out


def resampled_pairs(
    rng: np.random.Generator, source: Sequence[ArmLevel], pairs: int, *, n: int, effect: float
) -> tuple[list[ArmLevel], list[ArmLevel]]:
    """A/A pairs drawn from recorded real requests: both arms circular-block resamples of
    the same recorded arm and level (the candidate's latencies divided by `effect`)."""
    base, cand = [], []
    for i in range(pairs):
        lv = source[i % len(source)]
        m = len(lv.e2e_ms)
        ttft_all, tpot_all = lv.samples["ttft"], lv.samples["tpot"]
        if not (len(ttft_all) == len(tpot_all) == m):
            continue  # requests without a TPOT (one token) can't be kept aligned
        arms = []
        for _ in range(2):
            starts = rng.integers(0, m, -(-n // BLOCK))
            idx = ((starts[:, None] + np.arange(BLOCK)) % m).ravel()[:n]
            arms.append(idx)
        lane = f"r{i}"
        base.append(_arm(lane, ttft_all[arms[0]], tpot_all[arms[0]], lv.output_tokens[arms[0]]))
        cand.append(
            _arm(lane, ttft_all[arms[1]] / effect, tpot_all[arms[1]] / effect, lv.output_tokens[arms[1]])
        )
    return base, cand


# --- the gate on them ---------------------------------------------------------------------


def verdict_shares(
    rule: BuiltInRule, bar: float, base: list[ArmLevel], cand: list[ArmLevel], *, seed: int, n_boot: int
) -> dict[Verdict, float]:
    """The share of pairs with each verdict: one real gate evaluation, one lane per pair,
    no correction across lanes (each pair is its own experiment)."""
    result = evaluate_gate(
        GateInput(base, cand),
        GateRules.from_measurement(rule.measurement(bar)),
        seed=seed,
        n_boot=n_boot,
        correction="none",
    )
    checks = [c for c in result.checks if c.lane is not None]
    return {v: sum(c.verdict is v for c in checks) / len(checks) for v in Verdict}


def binomial_bound(nominal: float, pairs: int, level: float = 0.999) -> float:
    """The largest false-pass share a gate at `nominal` shows over `pairs` with probability
    `level` (the one-sided binomial quantile)."""
    return float(stats.binom.ppf(level, pairs, nominal)) / pairs


@dataclass
class RuleFigures:
    rule: BuiltInRule
    false_pass: float
    false_fail: float
    power: list[tuple[float, float]]


def measure(
    rule: BuiltInRule,
    make: Any,
    *,
    pairs: int,
    seed: int,
    n_boot: int,
) -> RuleFigures:
    """`make(effect)` → (baseline arms, candidate arms)."""
    aa = make(1.0)
    false_pass = verdict_shares(rule, 1.0, *aa, seed=seed, n_boot=n_boot)[Verdict.PASS]
    if rule.kind == "improve":
        false_fail = verdict_shares(rule, 1.0, *make(EFFECTS[0]), seed=seed, n_boot=n_boot)[Verdict.FAIL]
    else:
        false_fail = verdict_shares(rule, rule.example_bar, *aa, seed=seed, n_boot=n_boot)[Verdict.FAIL]
    bar = 1.0 if rule.kind == "improve" else rule.example_bar
    power = [
        (e, verdict_shares(rule, bar, *make(e), seed=seed, n_boot=n_boot)[Verdict.PASS]) for e in EFFECTS
    ]
    return RuleFigures(rule, false_pass, false_fail, power)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def print_table(title: str, figures: Iterable[RuleFigures], pairs: int) -> None:
    print(f"\n{title}")
    head = f"{'rule':<30} {'nominal':>8} {'false pass':>10} {'bound':>7} {'false fail':>10}"
    print(head + "".join(f"  power {e:g}x" for e in EFFECTS))
    for f in figures:
        bound = binomial_bound(f.rule.nominal, pairs)
        flag = "  " if f.false_pass <= bound else " !"
        print(
            f"{f.rule.label:<30} {_pct(f.rule.nominal):>8} {_pct(f.false_pass):>10}{flag}{_pct(bound):>6} "
            f"{_pct(f.false_fail):>10}" + "".join(f"  {_pct(p):>10}" for _, p in f.power)
        )


def small_n_sweep(rng: np.random.Generator, pairs: int, seed: int, n_boot: int) -> None:
    """The A/A false-pass rate of the median rule by requests per arm: where the bootstrap
    of few requests is too narrow, and what the minimum-n rule turns into Marginal."""
    rule = BUILT_IN_RULES[0]
    print(f"\n{rule.label}, iid A/A pairs, by requests per arm ({pairs} pairs each)")
    print(f"{'n':>5} {'pass':>7} {'marginal':>9} {'fail':>7}")
    for n in (4, 6, 12, 24, 64, 128):
        shares = verdict_shares(
            rule, 1.0, *simulated_pairs(rng, pairs, n=n, effect=1.0, scenario="iid"), seed=seed, n_boot=n_boot
        )
        print(
            f"{n:>5} {_pct(shares[Verdict.PASS]):>7} {_pct(shares[Verdict.MARGINAL]):>9} "
            f"{_pct(shares[Verdict.FAIL]):>7}"
        )


def table_of(figures: Sequence[RuleFigures], pairs: int, setup: str) -> dict[str, Any]:
    return {
        "measured": datetime.now(UTC).date().isoformat(),
        "setup": setup,
        "pairs": pairs,
        "rules": [
            {
                "rule": f.rule.label,
                "nominal": round(f.rule.nominal, 4),
                "false_pass": round(f.false_pass, 4),
                "false_fail": round(f.false_fail, 4),
                "power": [[e, round(p, 4)] for e, p in f.power],
            }
            for f in figures
        ],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000, help="pairs per rule and effect")
    parser.add_argument("--requests", type=int, default=REQUESTS_PER_ARM, help="requests per arm")
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recorded", type=Path, nargs="*", default=[], help="recorded harness results")
    parser.add_argument("--write-table", action="store_true", help=f"write {TABLE.name} for the method notes")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    pairs, n = args.pairs, args.requests
    print(
        f"gate calibration: {pairs} pairs per rule and effect, {n} requests per arm, "
        f"n_boot {args.n_boot}, seed {args.seed}; 'bound': the 99.9% binomial bound of the nominal level"
    )
    rng = np.random.default_rng(args.seed)
    interleaved: list[RuleFigures] = []
    for scenario, title in (
        ("iid", "iid samples"),
        ("interleaved", f"drift {DRIFT:+.0%} + AR(1) phi {AR_PHI}, arms in alternating blocks of {BLOCK}"),
        ("sequential", f"drift {DRIFT:+.0%} + AR(1) phi {AR_PHI}, arms one after the other (the old order)"),
    ):

        def make(effect: float, scenario: str = scenario) -> tuple[list[ArmLevel], list[ArmLevel]]:
            return simulated_pairs(rng, pairs, n=n, effect=effect, scenario=scenario)

        figures = [measure(r, make, pairs=pairs, seed=args.seed, n_boot=args.n_boot) for r in BUILT_IN_RULES]
        if scenario == "interleaved":
            interleaved = figures
        print_table(title, figures, pairs)
    if args.recorded:
        source = recorded_requests(args.recorded)
        if source:

            def from_recorded(effect: float) -> tuple[list[ArmLevel], list[ArmLevel]]:
                return resampled_pairs(rng, source, pairs, n=n, effect=effect)

            figures = [
                measure(r, from_recorded, pairs=pairs, seed=args.seed, n_boot=args.n_boot)
                for r in BUILT_IN_RULES
            ]
            print_table(f"recorded: {len(source)} recorded arm-levels, block-resampled A/A", figures, pairs)
        else:
            print(
                f"\nrecorded: no arm-level with {2 * BLOCK}+ requests in {', '.join(map(str, args.recorded))}"
            )
    else:
        print(
            "\nrecorded: none given (--recorded FILE.json); the repository ships no recorded per-request run"
        )
    small_n_sweep(rng, min(pairs, 1000), args.seed, args.n_boot)
    if args.write_table:
        setup = (
            f"{pairs} simulated A/A pairs per rule, {n} requests per arm, host drift {DRIFT:+.0%} with AR(1) "
            f"noise, arms in alternating blocks of {BLOCK}"
        )
        TABLE.write_text(json.dumps(table_of(interleaved, pairs, setup), indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {TABLE}")
    print(f"\n{time.perf_counter() - started:.0f} s")


def shares_for_test(
    rule: BuiltInRule, *, pairs: int, n: int, scenario: str, seed: int, n_boot: int
) -> Mapping[Verdict, float]:
    """The A/A verdict shares of one rule (the calibration test's entry point)."""
    rng = np.random.default_rng(seed)
    return verdict_shares(
        rule, 1.0, *simulated_pairs(rng, pairs, n=n, effect=1.0, scenario=scenario), seed=seed, n_boot=n_boot
    )


if __name__ == "__main__":
    main()
