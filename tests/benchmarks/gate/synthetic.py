"""Synthetic arms with known answers: the candidate's latencies are the baseline's
distribution divided by a planted speedup, drawn independently."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchmarks_app.gate import ArmLevel, GateRules

Draw = Callable[[np.random.Generator, int], np.ndarray]


def lognormal(sigma: float = 0.3) -> Draw:
    return lambda rng, n: rng.lognormal(0.0, sigma, n)


def pareto_noise(alpha: float = 2.5) -> Draw:
    """Lognormal body with a Pareto tail added: the stragglers real servers have."""
    return lambda rng, n: rng.lognormal(0.0, 0.3, n) + 0.2 * rng.pareto(alpha, n)


def arm(
    rng: np.random.Generator,
    *,
    scale: float,
    level: float = 1,
    lane: str = "chat",
    n: int = 200,
    draw: Draw | None = None,
    errors: int = 0,
    kind: str = "concurrency",
) -> ArmLevel:
    """One arm at one level; `scale` multiplies every latency (the baseline has 1)."""
    d = draw or lognormal()
    samples = {
        "ttft": 200.0 * scale * d(rng, n),
        "tpot": 30.0 * scale * d(rng, n),
        "e2e": 4000.0 * scale * d(rng, n),
        "itl_chunk": 60.0 * scale * d(rng, 4 * n),
    }
    return ArmLevel(
        lane=lane,
        level_kind=kind,  # type: ignore[arg-type]
        level=level,
        samples=samples,
        output_tokens=np.full(n, 128.0),
        e2e_ms=samples["e2e"],
        n_requests=n + errors,
        n_errors=errors,
    )


def rules(**measurement: object) -> GateRules:
    return GateRules.from_measurement(measurement)


def improve(metric: str = "tpot_p50", min_ratio: float = 1.2, **extra: object) -> GateRules:
    return rules(improve=[{"metric": metric, "min_ratio": min_ratio, "confidence": 0.95, **extra}])


def non_inferiority(metric: str = "ttft_p95", max_ratio: float = 1.10) -> GateRules:
    return rules(non_inferiority=[{"metric": metric, "max_ratio": max_ratio}])
