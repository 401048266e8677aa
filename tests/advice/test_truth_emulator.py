"""The emulator configured with a cell of the advisor's truth serves what the sampler draws."""

from __future__ import annotations

import json
import urllib.request

import numpy as np
import pytest

from tests.support import advice_truth as T
from tests.support.engine_emulator.acceptance import draw_steps
from tests.support.launcher import Emulators

REQUESTS = 30


def _stream(base_url: str, i: int) -> None:
    body = {"model": "test-model", "prompt": f"prompt {i}", "max_tokens": T.OUTPUT_TOKENS, "stream": True}
    req = urllib.request.Request(
        base_url + "/v1/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert b"[DONE]" in resp.read()


def test_the_emulator_serves_the_samplers_latencies() -> None:
    lane = "clear"
    candidate = next(c for c in T.candidates(lane) if c.name == "draft-3")
    cell = T.cell(lane, candidate)
    with Emulators() as emulators:
        emu = emulators.start(*cell.emulator_args(), "--model-seed", "3")
        for i in range(REQUESTS):  # one at a time: concurrency 1
            _stream(emu.base_url, i)
        truth = emu.get_json("/truth")
    assert len(truth) == REQUESTS
    sampled = cell.sample(np.random.default_rng(0), 1.0, 20_000)
    steps = draw_steps(np.random.default_rng(1), cell.alpha, cell.tokens, T.OUTPUT_TOKENS, 20_000)

    served_steps = [k for r in truth for k in r["chunk_tokens"]]
    assert all(sum(r["chunk_tokens"]) == T.OUTPUT_TOKENS for r in truth)
    assert max(served_steps) <= cell.tokens + 1
    # Mean tokens per step: ~330 steps served, sd ~1.1 tokens: 0.25 is about 4 standard errors.
    assert abs(np.mean(served_steps) - steps[steps > 0].mean()) < 0.25
    tpot = [(r["writes"][-1] - r["writes"][0]) * 1000 / (T.OUTPUT_TOKENS - 1) for r in truth]
    ttft = [(r["writes"][0] - r["recv"]) * 1000 for r in truth]
    # Medians within 15%: the sampling error of 30 requests (~5%) plus the event loop's lateness.
    assert np.median(tpot) == pytest.approx(np.median(sampled.tpot), rel=0.15)
    assert np.median(ttft) == pytest.approx(np.median(sampled.ttft), rel=0.15)


@pytest.mark.parametrize(
    ("argv", "param"),
    [(["--acceptance", "1.0"], "--acceptance"), (["--acceptance", "-0.1"], "--acceptance"),
     (["--step-jitter", "-1"], "--step-jitter")],
)  # fmt: skip
def test_the_emulator_refuses_a_model_it_cant_honour(argv: list[str], param: str) -> None:
    from tests.support.engine_emulator.config import ConfigError, build_parser, settings_from_args

    with pytest.raises(ConfigError) as exc:
        settings_from_args(build_parser().parse_args(argv))
    assert exc.value.param == param


def test_draws_are_a_function_of_the_seed_and_the_stream() -> None:
    from tests.support.engine_emulator.acceptance import stream_rng

    a = draw_steps(stream_rng(3, 1), 0.7, 4, T.OUTPUT_TOKENS, 1)
    assert (a == draw_steps(stream_rng(3, 1), 0.7, 4, T.OUTPUT_TOKENS, 1)).all()
    assert a.sum() == T.OUTPUT_TOKENS and a.max() <= 5
    with pytest.raises(ValueError, match="alpha"):
        draw_steps(stream_rng(3, 1), 1.0, 4, T.OUTPUT_TOKENS, 1)
