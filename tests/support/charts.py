"""Synthetic harness results for the chart tests: everything slows with load and
speculation's gain fades, with one failed request in thirty."""

from __future__ import annotations

import numpy as np


def harness(rng: np.random.Generator, *, speedup: float, levels=(1, 4, 16), n=60, spec: bool = False) -> dict:
    out = []
    for c in levels:
        slow = 1 + c / 16  # everything slows with load; speculation's gain fades
        gain = max(speedup / slow, 0.8)
        requests = [
            {
                "prompt_id": f"p{i}",
                "ttft_ms": float(rng.lognormal(np.log(150 * slow), 0.25)),
                "tpot_ms": float(rng.lognormal(np.log(30 * slow / gain), 0.2)),
                "e2e_ms": float(rng.lognormal(np.log(4000 * slow / gain), 0.2)),
                "itl_chunk_ms": rng.lognormal(np.log(40 * slow), 0.3, 10).tolist(),
                "chunk_tokens": ([3, 2, 4, 1, 3, 2, 3, 3, 2, 1] if spec else [1] * 10),
                "output_tokens": 24 if spec else 10,
                "error": None if i % 30 else "HTTP 500",
                "output_token_ids": [1, 2, 3],
            }
            for i in range(n)
        ]
        level = {
            "concurrency": c,
            "output_tokens_per_s": 50.0 * gain * c,
            "requests_per_s": 2.0 * c,
            "speculation": {
                "acceptance_rate": 0.8 / slow,
                "mean_acceptance_length": 2.4 / slow,
                # Per draft position: falling with position, and with load; none at c=16.
                **(
                    {"drafts": 100, "accepted_per_position": [round(n / slow) for n in (90, 60, 30)]}
                    if c < 16
                    else {}
                ),
            }
            if spec
            else "not reported",
            "memory": {"peak_gib": 60 + c, "headroom_gib": 20 - c},
            "requests": requests,
        }
        out.append(level)
    return {"levels": out}
