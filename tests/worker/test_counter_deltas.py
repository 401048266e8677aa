"""The one parser and the one counter difference that the worker (a level's /metrics) and
the control plane (the conformance probe, the acceptance watch) share."""

from __future__ import annotations

from worker.harness.acceptance.deltas import Restarted, counter_deltas
from worker.harness.acceptance.prometheus import parse


def test_the_parser_skips_values_no_counter_can_have() -> None:
    metrics = parse("a_total +Inf\nb_total -Inf\nc_total NaN\nd_total 4\n")
    assert list(metrics.samples) == ["d_total"]


def test_the_parser_keeps_at_most_max_samples() -> None:
    text = "".join(f'x_total{{i="{i}"}} 1\n' for i in range(50))
    assert parse(text, max_samples=10).total("x_total") == 10.0
    assert parse(text).total("x_total") == 50.0


def test_deltas_count_a_counter_missing_before_as_zero() -> None:
    assert counter_deltas({"a": 2.0}, {"a": 5.0, "b": 3.0}) == {"a": 3.0, "b": 3.0}
    assert counter_deltas({"a": None}, {"a": None}) == {"a": 0.0}


def test_the_first_counter_that_went_backwards_is_named_as_a_restart() -> None:
    got = counter_deltas({"a": 1.0, "b": 9.0, "c": 9.0}, {"a": 2.0, "b": 1.0, "c": 0.0})
    assert got == Restarted("b")
