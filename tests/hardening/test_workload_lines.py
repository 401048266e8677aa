"""No 5xx from a workload line: nested 10,000 deep, a `max_tokens` of 2^70, NaN, Infinity
or 1e999, a Mooncake timestamp past what a float holds, more records than
WORKLOAD_MAX_RECORDS, or any generated line. Each is a 4xx problem naming the line (and the
field where there is one), and nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.workloads.conftest import upload
from workloads_app.models import WorkloadContent, WorkloadVersion

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
GOOD = json.dumps({"prompt": "What is the capital of India?"})


def _refused(response: Any, status: int = 400) -> list[str]:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == PROBLEM
    assert not WorkloadVersion.objects.exists() and not WorkloadContent.objects.exists()
    return [e["path"] for e in response.json()["errors"]]


def test_a_line_nested_10000_deep_is_a_400_naming_the_line(admin_client: APIClient) -> None:
    deep = '{"prompt": "x", "sampling": ' + "[" * 10_000 + "]" * 10_000 + "}"
    response = upload(admin_client, f"{GOOD}\n{deep}\n")
    assert _refused(response) == ["line 2"]
    assert "deep" in response.json()["errors"][0]["message"]


def test_a_shallow_line_with_many_brackets_is_not_refused_for_depth(admin_client: APIClient) -> None:
    wide = json.dumps({"prompt": "[" * 5000 + "{" * 5000})  # brackets inside a string
    assert upload(admin_client, f"{GOOD}\n{wide}\n").status_code == 201


def test_max_tokens_of_2_to_the_70_is_a_400_naming_the_field(admin_client: APIClient) -> None:
    huge = str(2**70)
    chat = '{"messages": [{"role": "user", "content": "x"}]'
    for fmt, good, line in (
        ("specpact", GOOD, '{"prompt": "x", "max_tokens": ' + huge + "}"),
        ("openai", chat + "}", chat + ', "max_tokens": ' + huge + "}"),
        ("sglang", chat + "}", chat + ', "max_tokens": ' + huge + "}"),
    ):
        response = upload(admin_client, f"{good}\n{line}\n", format=fmt)
        assert _refused(response) == ["line 2.max_tokens"], fmt


def test_a_mooncake_timestamp_too_large_for_a_float_is_a_400(admin_client: APIClient) -> None:
    line = json.dumps({"timestamp": 2**1100, "input_length": 10, "output_length": 5, "hash_ids": [1]})
    response = upload(admin_client, line + "\n", format="mooncake")
    assert _refused(response) == ["line 1.timestamp"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_number_json_cannot_carry_is_a_400_naming_the_field(admin_client: APIClient, number: str) -> None:
    line = '{"prompt": "x", "arrival_s": ' + number + "}"
    paths = _refused(upload(admin_client, f"{GOOD}\n{line}\n"))
    assert paths in (["line 2"], ["line 2.arrival_s"])


def test_more_records_than_the_cap_is_a_413_naming_the_line(admin_client: APIClient, settings: Any) -> None:
    settings.WORKLOAD_MAX_RECORDS = 3
    body = "\n".join(json.dumps({"prompt": f"q{i}"}) for i in range(5))
    response = upload(admin_client, body)
    assert _refused(response, 413) == ["line 4"]
    assert "WORKLOAD_MAX_RECORDS" in response.json()["detail"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    ["prompt", "messages", "max_tokens", "arrival_s", "turn", "conversation", "id", "synthetic_prompt",
     "timestamp", "input_length", "output_length", "hash_ids", "conversations", "turns", "body", "url"]
)  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    line=st.dictionaries(FIELDS, JSON_VALUES, max_size=5).map(lambda d: json.dumps(d, allow_nan=True))
    | st.text(max_size=60),
    fmt=st.sampled_from(["specpact", "openai", "sharegpt", "vllm", "sglang", "mooncake"]),
)
def test_a_generated_line_is_never_a_5xx(admin_client: APIClient, line: str, fmt: str) -> None:
    response = upload(admin_client, line.encode("utf-8", "surrogatepass") + b"\n", format=fmt)
    assert response.status_code < 500, (line, fmt, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"] == PROBLEM
