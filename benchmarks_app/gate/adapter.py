"""From the harness's result JSON (plain dicts) to the gate's inputs.

Expected shape, per arm and lane (`worker.harness.results.result.BenchResult` dumped as JSON, the
`specpact-worker bench --out` file), of result schema 2 or 1:
    {"levels": [{"concurrency": 4 (or "rate": 2.0),
                 "output_tokens_per_s": …, "requests_per_s": …,
                 "requests": [{"prompt_id", "ttft_ms", "tpot_ms", "e2e_ms",
                               "chunk_offsets_us": [...] (schema 2: whole microseconds)
                               or "chunk_offsets_ms": [...] (schema 1)
                               or "itl_chunk_ms": [gaps],
                               "chunk_tokens": [...] | null, "output_tokens",
                               "error": null | str, "output_token_ids": [...] | null}]}],
     "memory": {"peak_gib"}, "headroom_gib"}     (run-wide; a level may carry its own "memory")
A request whose `error` is set counts as a failure; its timings are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from benchmarks_app.gate.inputs import (
    ArmLevel,
    FloatArray,
    GateInput,
    GateInputError,
    LevelKind,
    MemoryInput,
    StabilityInput,
    as_samples,
)


def level_of(level: Mapping[str, Any]) -> tuple[LevelKind, float]:
    """The load level of one harness level entry: its `concurrency` or its `rate`."""
    for kind in ("concurrency", "rate"):
        value = level.get(kind)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise GateInputError(f"level {kind} must be a positive number, not {value!r}")
            return kind, float(value)
    raise GateInputError("a level needs a 'concurrency' or a 'rate'")


def successful_requests(requests: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The successful requests in the order they were sent (`send_s`, where every one has
    it): the gate's autocorrelation test reads the samples in that order."""
    ok = [r for r in requests if not r.get("error")]
    if all(isinstance(r.get("send_s"), int | float) for r in ok):
        ok.sort(key=lambda r: r["send_s"])  # stable: ties keep the recorded order
    return ok


def chunk_offsets_ms(request: Mapping[str, Any]) -> FloatArray:
    """A request's chunk arrival offsets in ms, from either result schema."""
    offsets_us = request.get("chunk_offsets_us")
    if offsets_us is not None:
        return np.asarray(offsets_us, dtype=np.float64) / 1000.0
    return np.asarray(request.get("chunk_offsets_ms") or [], dtype=np.float64)


def chunk_gaps(request: Mapping[str, Any]) -> FloatArray:
    """A request's inter-chunk gaps (ms): given as `itl_chunk_ms`, or from its offsets."""
    gaps = request.get("itl_chunk_ms")
    if gaps is not None:
        return np.asarray(gaps, dtype=np.float64)
    return np.diff(chunk_offsets_ms(request))


def pooled_gaps(requests: Iterable[Mapping[str, Any]]) -> FloatArray:
    """Every inter-chunk gap of `requests` in one array (one small array per request on
    the way, never a list of Python floats)."""
    parts = [chunk_gaps(r) for r in requests]
    return np.concatenate(parts) if parts else np.empty(0)


def _scalar(level: Mapping[str, Any], key: str) -> float | None:
    value = level.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def arm_levels_from_harness(result: Mapping[str, Any], *, lane: str) -> list[ArmLevel]:
    """One ArmLevel per entry of `result["levels"]`."""
    levels = result.get("levels")
    if not isinstance(levels, list):
        raise GateInputError("a harness result needs a 'levels' list")
    arm_levels = []
    for level in levels:
        kind, value = level_of(level)
        requests = level.get("requests") or []
        ok = successful_requests(requests)
        # Throughput needs (tokens, E2E) pairs from the same requests.
        pairs = [
            (r["output_tokens"], r["e2e_ms"])
            for r in ok
            if isinstance(r.get("output_tokens"), int | float) and isinstance(r.get("e2e_ms"), int | float)
        ]
        tokens, e2e = (
            (np.array(x, dtype=np.float64) for x in zip(*pairs, strict=True))
            if pairs
            else (
                np.empty(0),
                np.empty(0),
            )
        )
        arm_levels.append(
            ArmLevel(
                lane=lane,
                level_kind=kind,
                level=value,
                samples={
                    "ttft": as_samples([r.get("ttft_ms") for r in ok]),
                    "tpot": as_samples([r.get("tpot_ms") for r in ok]),
                    "e2e": as_samples([r.get("e2e_ms") for r in ok]),
                    "itl_chunk": as_samples(pooled_gaps(ok)),
                },
                output_tokens=tokens,
                e2e_ms=e2e,
                n_requests=len(requests),
                n_errors=len(requests) - len(ok),
                output_tokens_per_s=_scalar(level, "output_tokens_per_s"),
                requests_per_s=_scalar(level, "requests_per_s"),
            )
        )
    return arm_levels


def exact_match_rate(
    baseline: Sequence[Mapping[str, Any]], candidate: Sequence[Mapping[str, Any]]
) -> StabilityInput | None:
    """Greedy output stability from two arms' requests at the same level.

    Requests pair by `prompt_id` when both arms carry it, else by position (the harness
    sends the same prompts in the same order to both arms). Only pairs where both requests
    succeeded with `output_token_ids` count. None when nothing could be compared.
    """
    if all("prompt_id" in r for r in [*baseline, *candidate]):
        by_id = {r["prompt_id"]: r for r in baseline}
        pairs = [(by_id[r["prompt_id"]], r) for r in candidate if r["prompt_id"] in by_id]
    else:
        pairs = list(zip(baseline, candidate, strict=False))
    compared = same = 0
    first: str | None = None
    for b, c in pairs:
        tb, tc = b.get("output_token_ids"), c.get("output_token_ids")
        if b.get("error") or c.get("error") or tb is None or tc is None:
            continue
        compared += 1
        if list(tb) == list(tc):
            same += 1
        elif first is None:
            at = next(
                (i for i, (x, y) in enumerate(zip(tb, tc, strict=False)) if x != y), min(len(tb), len(tc))
            )
            first = f"prompt {b.get('prompt_id', compared - 1)} at output token {at}"
    return StabilityInput(same / compared, compared, first) if compared else None


def gate_input_from_harness(
    *,
    baseline: Mapping[str, Mapping[str, Any]],
    candidate: Mapping[str, Mapping[str, Any]],
    stability: Mapping[str, Mapping[str, Any]] | None = None,
) -> GateInput:
    """Build the gate's input from per-lane harness results of the two arms.

    `baseline`/`candidate` map lane → that arm's harness result JSON. `stability` maps lane →
    the harness's `StabilityReport` (`exact_match_rate`, `prompts_compared`, `divergences`)
    or `{"exact_match_rate", "compared"?, "first_divergence"?}`; a lane without it is
    compared here from `output_token_ids` (pooled over levels).
    Memory: the least headroom and the largest peak over the candidate's results and levels.
    """
    base_levels = [a for lane, res in baseline.items() for a in arm_levels_from_harness(res, lane=lane)]
    cand_levels = [a for lane, res in candidate.items() for a in arm_levels_from_harness(res, lane=lane)]
    stab: dict[str, StabilityInput] = {}
    for lane, given in (stability or {}).items():
        if (parsed := _given_stability(lane, given)) is not None:
            stab[lane] = parsed
    for lane in candidate.keys() & baseline.keys() - stab.keys():
        if (computed := _stability_of_lane(baseline[lane], candidate[lane])) is not None:
            stab[lane] = computed
    return GateInput(base_levels, cand_levels, stab, _memory(candidate.values()))


def _given_stability(lane: str, given: Mapping[str, Any]) -> StabilityInput | None:
    rate = given.get("exact_match_rate")
    if rate is None:
        return None  # the harness could compare nothing (e.g. sampled decoding)
    if isinstance(rate, bool) or not isinstance(rate, int | float):
        raise GateInputError(f"stability for lane {lane} needs a numeric exact_match_rate")
    compared = given.get("compared", given.get("prompts_compared"))
    first = given.get("first_divergence")
    divergences = given.get("divergences") or []
    if first is None and divergences and isinstance(divergences[0], Mapping):
        d = divergences[0]
        first = f"prompt {d.get('prompt_id')} at output token {d.get('first_divergence')}"
    return StabilityInput(float(rate), compared, first)


def _stability_of_lane(baseline: Mapping[str, Any], candidate: Mapping[str, Any]) -> StabilityInput | None:
    base_by_level = {level_of(lv): lv.get("requests") or [] for lv in baseline.get("levels") or []}
    compared = same = 0
    first: str | None = None
    for lv in candidate.get("levels") or []:
        s = exact_match_rate(base_by_level.get(level_of(lv), []), lv.get("requests") or [])
        if s is None or s.compared is None:
            continue
        compared += s.compared
        same += round(s.exact_match_rate * s.compared)
        first = first or s.first_divergence
    return StabilityInput(same / compared, compared, first) if compared else None


def _memory(results: Iterable[Mapping[str, Any]]) -> MemoryInput | None:
    headrooms, peaks = [], []
    for res in results:
        if (h := _scalar(res, "headroom_gib")) is not None:
            headrooms.append(h)
        if (p := _scalar(res.get("memory") or {}, "peak_gib")) is not None:
            peaks.append(p)
        for lv in res.get("levels") or []:
            mem = lv.get("memory") or {}
            if (h := _scalar(mem, "headroom_gib")) is not None:
                headrooms.append(h)
            if (p := _scalar(mem, "peak_gib")) is not None:
                peaks.append(p)
    if not headrooms and not peaks:
        return None
    return MemoryInput(min(headrooms) if headrooms else None, max(peaks) if peaks else None)
