"""An advice run and its recommendations in words, for the page: pure functions of the
stored dicts (serialize.recommendation_to_dict, AdviceRun.dispatched). Honest about what
is not known: "can't tell", "speculation off" and "not finished" are said as such, and a
leader of an unfinished run is never called a recommendation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.wording import X, interval, pct

Json = Mapping[str, Any]


def metric_label(metric: str | None) -> str:
    return METRICS[metric].label if metric in METRICS else (metric or "the primary metric")


def chosen_n(rec: Json) -> int | None:
    """Requests per cell behind the chosen candidate: the fewest over its levels."""
    chosen = rec.get("chosen") or {}
    ns = [p["n"] for p in (rec.get("curves") or {}).get(chosen.get("name"), []) if p.get("n")]
    return min(ns) if ns else None


def _candidate(c: Json) -> str:
    return f"{c['name']} ({c['method']}, {c['tokens']} token{'s' if c['tokens'] != 1 else ''})"


def headline(rec: Json) -> str:
    """The lane's answer in one sentence."""
    verdict = rec.get("verdict")
    label = metric_label(rec.get("metric"))
    if verdict == "speculation_off":
        head = "Speculation off: no candidate beats speculation off within the contract's rules."
    else:
        chosen = rec["chosen"]
        lo, hi = rec["value_ci"] or (None, None)
        n = chosen_n(rec)
        ci = interval(lo, hi) if lo is not None and hi is not None else "[interval unknown]"
        measured = (
            f"{label} {rec['value']:.2f}{X} faster than speculation off over the levels "
            f"(geometric mean), {ci} at "
            f"{pct(rec['confidence'])} confidence" + (f", n = {n} requests per cell" if n else "")
        )
        if verdict == "cant_tell":
            others = ", ".join(t["candidate"] for t in rec.get("tied", []))
            head = (
                f"Can't tell {chosen['name']} from {others}: they are within the noise. "
                f"The cheaper one (fewer assets) is {_candidate(chosen)}: {measured}."
            )
        else:
            head = f"Run {_candidate(chosen)}: {measured}."
    if not rec.get("finished", True):
        return f"Not finished: still measuring. What it has seen so far, not a recommendation: {head}"
    if budget_ran_out(rec):
        spent = rec.get("budget_spent") or f"{rec.get('requests_spent')} of {rec.get('budget')} requests"
        return (
            f"Not finished: the budget was spent ({spent}) before the advisor "
            f"could decide. What it had seen, not a recommendation: {head}"
        )
    return head


def budget_ran_out(rec: Json) -> bool:
    """Measuring ended without the advisor stopping: the budget could buy no further round
    (strategy Recommendation.stopped is None). A dict without `stopped` can't say so."""
    return bool(rec.get("finished", True)) and "stopped" in rec and rec["stopped"] is None


def decided(rec: Json) -> bool:
    return bool(rec.get("finished", True)) and not budget_ran_out(rec)


def schedule_rows(rec: Json) -> list[dict[str, Any]]:
    """The token schedule, one row per step: from which concurrency up, what runs."""
    steps: Sequence[Json] = rec.get("schedule") or []
    rows = []
    for i, s in enumerate(steps):
        upto = steps[i + 1]["from_level"] if i + 1 < len(steps) else None
        where = f"concurrency {s['from_level']:g}" + (
            f" to below {upto:g}" if upto is not None else " and up"
        )
        what = (
            "speculation off"
            if s["method"] == "off"
            else f"{s['candidate']} ({s['method']}, {s['tokens']} tokens)"
        )
        rows.append({"where": where, "what": what})
    return rows


def tied_rows(rec: Json) -> list[dict[str, Any]]:
    rows = []
    for t in rec.get("tied", []):
        lo, hi = t["interval"]
        needed = t.get("requests_per_cell")
        if needed is None:
            separate = "no difference was seen: no number of requests would separate them"
        else:
            separate = f"about {needed} requests per cell (now {t['n']}), if the difference is what was seen"
        rows.append(
            {
                "candidate": t["candidate"],
                "ratio": f"{t['ratio']:.3f}{X} {interval(lo, hi)}"
                if lo is not None and hi is not None
                else "?",
                "n": t["n"],
                "separate": separate,
            }
        )
    return rows


def progress_words(state: str, dispatched: Mapping[str, Json], last_error: str) -> str:
    """What the run is doing, from its state and the runs it sent out."""
    pending = [d for d in dispatched.values() if d.get("status") == "pending"]
    if state == "queued":
        return "Queued: its first runs wait for a registered worker."
    if state == "measuring":
        if not pending:
            return "Measuring: deciding what to measure next."
        lanes = sorted({d.get("lane", "?") for d in pending})
        return (
            f"Measuring: {len(pending)} run{'s' if len(pending) != 1 else ''} pending on lane"
            f"{'s' if len(lanes) != 1 else ''} {', '.join(lanes)}."
        )
    if state == "finished":
        return "Finished: every lane has its recommendation."
    if state == "failed":
        return f"Failed: {last_error or 'no reason was recorded.'}"
    if state == "cancelled":
        return "Cancelled: what was measured before is kept; no recommendation was made for the lanes left."
    return state
