"""`specpact advise ROUTE --lane L [--lane L2] --budget N [--budget-gpu-minutes M]
[--candidate METHOD:TOKENS …] [--seed S] [--wait]`: ask what the route's lanes should run
(POST routes/{slug}/advice/) and, with --wait, say the recommendation per lane in words when
the advisor stops.

Without --candidate, the active version's own method is tried at half, the same and twice
its tokens. Exit codes: 0 the advice was asked for (or, with --wait, finished: whatever it
recommends, speculation off included), 1 it failed or was cancelled, 2 invalid input,
3 timeout or server unreachable."""

from __future__ import annotations

import argparse
import time
from typing import Any

from specpact.cli.client import ApiError, Client
from specpact.cli.exit_codes import FAILED, INVALID, OK, UNREACHABLE
from specpact.cli.online import _guarded, add_server_options
from specpact.cli.output import emit, note

POLL_MAX_S = 10.0
PROGRESS_EVERY_S = 15.0
FINAL = {"finished": OK, "failed": FAILED, "cancelled": FAILED}


def register(subparsers: Any) -> None:
    advise = subparsers.add_parser(
        "advise", help="measure candidates per lane and recommend method, tokens and load (advice run)"
    )
    advise.add_argument("route")
    advise.add_argument("--lane", action="append", required=True, help="a lane to advise on (repeatable)")
    advise.add_argument("--budget", type=int, required=True, help="requests per lane, both arms together")
    advise.add_argument(
        "--budget-gpu-minutes",
        type=float,
        default=None,
        metavar="MINUTES",
        help="also at most this many minutes of worker time, all lanes together (checked between rounds)",
    )
    advise.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="METHOD:TOKENS",
        help="a configuration to try, e.g. ngram:4 (repeatable; default: the active method at "
        "half, the same and twice its tokens)",
    )
    advise.add_argument("--seed", type=int, default=0)
    advise.add_argument("--looks", type=int, help="the advisor's looks (default 4): fewer stop earlier")
    advise.add_argument("--n-start", type=int, help="requests per cell in the first round (default: 16 or "
                        "what the contract's quantiles need)")  # fmt: skip
    advise.add_argument("--wait", action="store_true", help="wait for the recommendation, progress on stderr")
    advise.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait (default 3600)")
    add_server_options(advise)
    advise.set_defaults(handler=_guarded(cmd_advise))


def parse_candidate(text: str) -> dict[str, Any]:
    method, sep, tokens = text.partition(":")
    if not sep or not method or not tokens.isdigit() or int(tokens) < 1:
        raise ApiError(f"--candidate {text!r}: write METHOD:TOKENS, e.g. ngram:4", INVALID)
    return {"method": method, "tokens": int(tokens)}


def _default_candidates(client: Client, route: str) -> list[dict[str, Any]]:
    detail = client.get(f"routes/{route}/")
    number = detail.get("active_version")
    if number is None:
        raise ApiError(f"route {route} has no active version to advise on", INVALID)
    speculation = (client.get(f"routes/{route}/versions/{number}/").get("document") or {}).get(
        "speculation"
    ) or {}
    method, tokens = speculation.get("method", "none"), speculation.get("num_speculative_tokens") or 0
    if method == "none" or tokens < 1:
        raise ApiError(
            f"version {number} runs no speculation: say what to try with --candidate METHOD:TOKENS", INVALID
        )
    counts = sorted({max(1, tokens // 2), tokens, tokens * 2})
    return [{"method": method, "tokens": n} for n in counts]


def lane_lines(lane: str, rec: dict[str, Any]) -> list[str]:
    """One lane's recommendation in words."""
    lines = [rec["summary"]]
    if rec.get("chosen") and rec.get("value_ci"):
        lo, hi = rec["value_ci"]
        metric = rec.get("metric", "primary metric")
        lines.append(
            f"  value: {rec['value']:.3f}x [{lo:.3f}, {hi:.3f}] ({metric} speedup over the levels, "
            f"{rec['confidence']:.1%} per look)"
        )
    if len(rec.get("schedule") or []) > 1:
        steps = ", ".join(
            f"from {s['from_level']:g}: {s['candidate'] if s['tokens'] else 'speculation off'}"
            for s in rec["schedule"]
        )
        lines.append(f"  schedule by concurrency: {steps}")
    for t in rec.get("tied") or []:
        need = t.get("requests_per_cell")
        more = f"about {need} requests per cell would separate them" if need else "no difference seen"
        lines.append(
            f"  can't tell from {t['candidate']}: ratio {t['ratio']:.3f} after {t['n']} per cell; {more}"
        )
    for d in rec.get("dropped") or []:
        lines.append(f"  dropped {d['candidate']} (after {d['n']} per cell): {d['reason']}")
    lines.append(f"  spent {rec['requests_spent']} of {rec['budget']} requests" + ("" if rec["finished"] else
                 " (the budget ended before the advisor would stop)"))  # fmt: skip
    if rec.get("budget_spent"):
        lines.append(f"  stopped by the GPU-minute budget: {rec['budget_spent']}, before the advisor decided")
    return lines


def advice_lines(advice: dict[str, Any]) -> list[str]:
    head = f"advice {advice['id']} on {advice['route']} (version {advice['based_on']}): {advice['state']}"
    if advice.get("last_error") and advice["state"] != "finished":
        head += f": {advice['last_error']}"
    lines = [head]
    for lane, rec in (advice.get("recommendations") or {}).items():
        lines += lane_lines(lane, rec)
    return lines


def _progress(advice: dict[str, Any]) -> str:
    runs = advice.get("runs") or []
    done = sum(1 for r in runs if r.get("recorded"))
    spent = ", ".join(f"{lane} {n}/{advice['budget']}" for lane, n in (advice.get("spent") or {}).items())
    return (
        f"advice {advice['id']}: {advice['state']}, {done}/{len(runs)} runs recorded, requests spent: {spent}"
    )


def _wait(client: Client, advice_id: int, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    delay, said, said_at = 1.0, "", 0.0
    while True:
        advice = client.get(f"advice/{advice_id}/")
        if advice["state"] in FINAL:
            return dict(advice)
        line, now = _progress(advice), time.monotonic()
        if line != said or now - said_at >= PROGRESS_EVERY_S:
            note(f"[{now - started:5.0f} s] {line}")
            said, said_at = line, now
        if now >= deadline:
            raise ApiError(f"advice {advice_id} still {advice['state']} after {timeout:.0f} s", UNREACHABLE)
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, POLL_MAX_S)


def cmd_advise(args: argparse.Namespace) -> int:
    client = Client(args.url, args.token)
    candidates = [parse_candidate(c) for c in args.candidate] or _default_candidates(client, args.route)
    options = {k: v for k, v in (("looks", args.looks), ("n_start", args.n_start)) if v is not None}
    body = {"lanes": args.lane, "candidates": candidates, "budget": args.budget, "seed": args.seed,
            "options": options, "budget_gpu_minutes": args.budget_gpu_minutes}  # fmt: skip
    _, advice = client.post(f"routes/{args.route}/advice/", body)
    if not args.wait:
        emit(
            args, advice, [_progress(advice), f"  GET /api/v1/advice/{advice['id']}/ for its recommendation"]
        )
        return OK
    note(_progress(advice))
    final = _wait(client, advice["id"], args.timeout)
    emit(args, final, advice_lines(final))
    return FINAL[final["state"]]
