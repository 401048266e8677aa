"""Each engine's acceptance reader on the text its engine writes: labels kept, counters
differenced (never an average since start), a restart named, nothing invented."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from worker.harness.acceptance import llamacpp, sglang, tgi, vllm
from worker.harness.acceptance.prometheus import parse
from worker.harness.acceptance.requests import from_requests
from worker.harness.results.requests import RequestRecord
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported


def _vllm(drafts: tuple[int, int], drafted: int, accepted: int, per_pos: list[tuple[int, int]]) -> str:
    """vLLM's /metrics with two engines (DP ranks) and per-position counters per engine."""
    lines = ["# HELP vllm:spec_decode_num_drafts Number of spec decoding drafts."]
    for engine, n in enumerate(drafts):
        lines.append(f'vllm:spec_decode_num_drafts_total{{engine="{engine}",model_name="m"}} {float(n)}')
    lines += [
        f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {float(drafted)}',
        f'vllm:spec_decode_num_accepted_tokens_total{{engine="0",model_name="m"}} {float(accepted)}',
    ]
    for pos, (e0, e1) in enumerate(per_pos):
        for engine, n in enumerate((e0, e1)):
            lines.append(
                f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="{engine}",model_name="m",'
                f'position="{pos}"}} {float(n)}'
            )
    return "\n".join(lines) + "\n"


def test_the_parser_keeps_labels_and_escapes() -> None:
    text = (
        '# TYPE x counter\nx_total{a="1",b="q\\"uo,te"} 2\nx_total{a="2",b="z"} 3.5 1700000000\n'
        "garbage line\ny NaN\nz 1e3\n"
    )
    metrics = parse(text)
    assert metrics.total("x_total") == 5.5 and metrics.by_label("x_total", "b") == {'q"uo,te': 2.0, "z": 3.5}
    assert "y" not in metrics and metrics.total("z") == 1000.0 and metrics.total("absent") is None


def test_vllm_counters_are_differenced_summed_over_engines_and_kept_per_position() -> None:
    before = parse(_vllm((10, 5), 60, 30, [(9, 4), (6, 2), (4, 1)]))
    after = parse(_vllm((30, 25), 200, 70, [(25, 16), (11, 7), (5, 2)]))
    got = vllm.from_metrics(before, after)
    assert isinstance(got, SpeculationReported)
    # 40 drafts (20 per engine), 140 drafted, 40 accepted: positions 0, 1, 2 gained 28, 10, 2.
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (40, 140, 40)
    assert got.acceptance_rate == 40 / 140 and got.mean_acceptance_length == 1 + 40 / 40
    assert got.accepted_per_position == [28, 10, 2] and got.rate_by_position() == [0.7, 0.25, 0.05]


def test_a_counter_going_backwards_is_a_restart_not_a_figure() -> None:
    before = parse(_vllm((10, 5), 60, 30, [(9, 4), (6, 2), (4, 1)]))
    after = parse(_vllm((2, 1), 9, 3, [(2, 1), (0, 0), (0, 0)]))
    got = vllm.from_metrics(before, after)
    assert isinstance(got, SpeculationNotReported)
    assert "went backwards" in got.reason and "restarted" in got.reason


def test_no_counters_or_no_drafts_means_not_reported() -> None:
    empty = parse("vllm:num_requests_running 1\n")
    assert "speculation off" in vllm.from_metrics(empty, empty).reason  # type: ignore[union-attr]
    same = parse(_vllm((1, 1), 5, 2, [(1, 1)]))
    assert "no drafts" in vllm.from_metrics(same, same).reason  # type: ignore[union-attr]
    assert isinstance(llamacpp.from_metrics(None, None), SpeculationNotReported)


def test_llamacpp_counters_without_labels_and_positions_as_llama_server_writes_them() -> None:
    def text(drafts: int, drafted: int, accepted: int, per_pos: list[int]) -> str:
        lines = [
            f"llamacpp:spec_decode_num_draft_tokens_total {drafted}",
            f"llamacpp:spec_decode_num_accepted_tokens_total {accepted}",
            f"llamacpp:spec_decode_num_drafts_total {drafts}",
        ]
        lines += [f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {n}'
                  for i, n in enumerate(per_pos)]  # fmt: skip
        return "\n".join(lines)

    got = llamacpp.from_metrics(parse(text(4, 16, 3, [2, 1])), parse(text(10, 40, 9, [6, 3, 0])))
    assert isinstance(got, SpeculationReported)
    assert got.accepted_per_position == [4, 2, 0] and got.acceptance_rate == 6 / 24


def test_tgi_mean_acceptance_length_from_the_histograms_sum_and_count() -> None:
    def text(total: float, count: int) -> str:
        return (
            '# TYPE tgi_request_skipped_tokens summary\ntgi_request_skipped_tokens{quantile="0.5"} 1\n'
            f"tgi_request_skipped_tokens_sum {total}\ntgi_request_skipped_tokens_count {count}\n"
        )

    got = tgi.from_metrics(parse(text(100.0, 50)), parse(text(130.0, 70)))  # 20 steps, 30 skipped
    assert isinstance(got, SpeculationReported) and got.mean_acceptance_length == 1 + 30 / 20
    assert got.acceptance_rate is None  # --speculate is not exported: no denominator
    restarted = tgi.from_metrics(parse(text(100.0, 50)), parse(text(3.0, 2)))
    assert isinstance(restarted, SpeculationNotReported) and "went backwards" in restarted.reason
    assert "no tgi_request_skipped_tokens" in tgi.from_metrics(parse(""), parse("")).reason  # type: ignore[union-attr]


def _info(*averages: float | None) -> dict[str, object]:
    states = [{"last_gen_throughput": 0.0} | ({} if a is None else {sglang.AVERAGE: a}) for a in averages]
    return {"dp_size": len(averages), "internal_states": states}


def test_sglang_ranks_fresh_at_the_start_give_the_levels_own_figures() -> None:
    got = sglang.from_server_info(_info(None, None, None), _info(2.5, None, 3.0))
    assert isinstance(got, SpeculationReported)
    assert got.mean_acceptance_length_by_rank == [2.5, None, 3.0] and got.mean_acceptance_length is None
    one = sglang.from_server_info(_info(None), _info(2.5))
    assert isinstance(one, SpeculationReported) and one.mean_acceptance_length == 2.5


def test_sglang_lifetime_averages_are_never_passed_off_as_the_level() -> None:
    metrics = parse(
        'sglang:spec_accept_length{model_name="m"} 2.2\nsglang:spec_accept_rate{model_name="m"} 0.4'
    )
    got = sglang.from_server_info(_info(None, 2.0), _info(2.5, 2.4), metrics)
    assert isinstance(got, SpeculationNotReported)
    assert "DP rank 1 had speculated before the level" in got.reason
    assert "sglang:spec_accept_length 2.2" in got.reason and "not the level's" in got.reason
    assert isinstance(sglang.from_server_info(None, _info(2.0)), SpeculationNotReported)
    assert "ranks changed" in sglang.from_server_info(_info(None), _info(2.0, 2.0)).reason  # type: ignore[union-attr]


def test_per_request_counts_sum_and_not_reported_without_drafts() -> None:
    rec = RequestRecord(prompt_id="a", send_s=0, ttft_ms=1, e2e_ms=2, tpot_ms=1.0, chunk_offsets_us=[1000],
                        output_tokens=2, output_tokens_source="usage")  # fmt: skip
    assert isinstance(from_requests([rec], "x"), SpeculationNotReported)


REPORTED = {"acceptance_rate": 0.5, "source": "s"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (REPORTED | {"accepted_per_position": [1, 1]}, "needs drafts"),
        (REPORTED | {"drafts": 1, "accepted_per_position": [2]}, "more tokens than there were drafts"),
        (REPORTED | {"drafts": 4, "accepted_tokens": 3, "accepted_per_position": [2, 2]}, "sums to 4"),
        ({"source": "s", "mean_acceptance_length_by_rank": [None, None]}, "needs acceptance_rate"),
    ],
)
def test_impossible_per_position_or_rank_figures_are_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        SpeculationReported.model_validate(fields)
