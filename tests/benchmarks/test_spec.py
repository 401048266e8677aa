"""The run specification: versioned, validated, refused in words when it can't be run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.run_specs import arm, run_spec
from worker.spec import RunSpec, SpecRefused, parse_spec

ARM = arm(method="none")
SPEC: dict[str, Any] = run_spec(
    spec_version=1,
    run_id=7,
    attempt=2,
    baseline=ARM,
    candidate=ARM,
    workload={"lane": "chat", "dataset": "builtin:chat"},
    levels=[{"concurrency": 1}, {"concurrency": 4}, {"rate": 2.5}],
    requests_per_level=8,
    max_tokens=64,
    seed=3,
)


def test_a_valid_spec_round_trips_through_json() -> None:
    spec = parse_spec(json.dumps(SPEC))
    assert spec.run_id == 7 and spec.total_requests == 2 * 3 * 8
    assert RunSpec.model_validate_json(spec.model_dump_json()) == spec


def test_abba_order_alternates_the_first_arm_level_by_level() -> None:
    assert parse_spec(SPEC).order() == [
        (0, "baseline"),
        (0, "candidate"),
        (1, "candidate"),
        (1, "baseline"),
        (2, "baseline"),
        (2, "candidate"),
    ]
    blocks = parse_spec({**SPEC, "interleave": "arm_blocks"}).order()
    assert blocks == [
        (0, "baseline"),
        (1, "baseline"),
        (2, "baseline"),
        (0, "candidate"),
        (1, "candidate"),
        (2, "candidate"),
    ]


@pytest.mark.parametrize("version", [0, 2, 99])
def test_another_spec_version_is_refused_in_words_naming_the_run(version: int) -> None:
    with pytest.raises(SpecRefused) as caught:
        parse_spec({**SPEC, "spec_version": version, "something_new": True})
    assert (caught.value.run_id, caught.value.attempt) == (7, 2)
    assert (
        f"was sent version {version}" in caught.value.reason
        and "reads run specification version 1" in caught.value.reason
    )


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("not json", "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"spec_version": 1}', "no readable envelope"),
        (json.dumps({**SPEC, "max_tokens": -1}), "max_tokens"),
        (
            json.dumps({**SPEC, "limits": {"soft_time_limit_s": 100, "time_limit_s": 100}}),
            "soft_time_limit_s",
        ),
        (
            json.dumps({**SPEC, "load": {**SPEC["load"], "levels": [{"concurrency": 1, "rate": 2}]}}),
            "exactly one",
        ),
    ],
)
def test_a_malformed_spec_is_refused_with_the_field(raw: str, says: str) -> None:
    with pytest.raises(SpecRefused, match=says):
        parse_spec(raw)


def test_arms_must_use_the_same_engine_kind() -> None:
    other = {**ARM, "engine": {"kind": "transformers"}}
    with pytest.raises(SpecRefused, match="same engine kind"):
        parse_spec({**SPEC, "arms": {"baseline": ARM, "candidate": other}})
