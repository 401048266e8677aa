"""Output stability: token by token where ids are known, else by text."""

from __future__ import annotations

from worker.harness.results.requests import RequestRecord
from worker.harness.stability import compare_outputs


def _rec(pid: str, ids: list[int] | None, text: str = "", error: str | None = None) -> RequestRecord:
    if error:
        return RequestRecord(prompt_id=pid, send_s=0, error=error)
    n = len(ids) if ids else len(text.split())
    return RequestRecord(
        prompt_id=pid, send_s=0, ttft_ms=1, e2e_ms=1 + (n - 1), tpot_ms=1.0 if n > 1 else None,
        chunk_offsets_ms=[1.0], output_tokens=n, output_tokens_source="usage", output_token_ids=ids,
        output_text=text,
    )  # fmt: skip


def test_token_by_token_with_the_first_divergence() -> None:
    base = [_rec("a", [1, 2, 3]), _rec("b", [4, 5, 6]), _rec("c", [7, 8])]
    cand = [_rec("a", [1, 2, 3]), _rec("b", [4, 9, 6]), _rec("c", [7, 8, 1]), _rec("d", [1])]
    report = compare_outputs(base, cand)
    assert report.basis == "token_ids" and report.prompts_compared == 3 and report.exact_matches == 1
    assert report.exact_match_rate == 1 / 3
    assert [(d.prompt_id, d.first_divergence) for d in report.divergences] == [("b", 1), ("c", 2)]
    assert report.not_compared == ["d"]


def test_text_comparison_when_token_ids_are_missing_and_failures_left_out() -> None:
    report = compare_outputs(
        [_rec("a", None, "x y"), _rec("b", None, "z")],
        [_rec("a", None, "x y"), _rec("b", None, error="HTTP 500: x")],
    )
    assert report.basis == "text" and report.exact_match_rate == 1.0 and report.not_compared == ["b"]
