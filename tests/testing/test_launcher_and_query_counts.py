"""The launcher starts the emulator on the port it got and stops it; a reserved port is
refused to others; the query-count helper pins a count and shows the queries when off."""

from __future__ import annotations

import socket

import pytest
from django.contrib.auth import get_user_model

from tests.support.launcher import Emulators, reserved_port, start_emulator
from tests.support.query_counts import assert_num_queries


def test_the_emulator_reports_the_port_it_bound_and_stops() -> None:
    emulator = start_emulator("--shape", "tgi")
    assert emulator.port > 0 and emulator.healthy()
    emulator.stop()
    assert emulator.proc.returncode is not None
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", emulator.port)) != 0


def test_an_emulator_that_cannot_start_says_so() -> None:
    with pytest.raises(RuntimeError, match=r"did not start \(exit 2\)"):
        start_emulator("--pattern", "0")


def test_a_pool_stops_every_emulator_it_started() -> None:
    with Emulators() as pool:
        started = [pool.start(), pool.start("--shape", "sglang")]
        assert len({e.port for e in started}) == 2
    assert all(e.proc.returncode is not None for e in started)


def test_a_reserved_port_is_refused_to_connections_and_to_other_binds() -> None:
    with reserved_port() as port:
        with socket.socket() as client:
            assert client.connect_ex(("127.0.0.1", port)) != 0
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))


@pytest.mark.django_db
def test_a_pinned_query_count_passes_when_exact_and_lists_the_queries_when_not() -> None:
    users = get_user_model().objects
    with assert_num_queries(2):
        users.count()
        users.filter(username="x").exists()
    with (
        pytest.raises(AssertionError, match=r"(?s)1 queries ran, 2 expected:\n  1\. SELECT COUNT"),
        assert_num_queries(2),
    ):
        users.count()
