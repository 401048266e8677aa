"""Every write endpoint of the OpenAPI schema, fed generated hostile bodies: nesting deeper
than any parser should follow, NUL, lone surrogates, integers past the columns and past
bigint, 1e400, very long strings, in the fields the endpoint expects and elsewhere. None
may answer 5xx; a body with a value nothing can store must be refused; and a refused body
writes no row (every model's rows are counted before and after). A body whose values are
merely odd may be accepted (DRF reads `"reason": -7` as the reason "-7").

The endpoints come from the schema drf-spectacular builds from the URLconf, so a new
endpoint is fuzzed without touching this file; `test_every_write_endpoint_is_fuzzed` keeps
the list honest."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.workers import bootstrap_token_create
from releases_app.services import release_create
from tests.support.factories import make_token
from tests.support.workers import openai_run, register

pytestmark = pytest.mark.django_db

WRITE_METHODS = ("post", "put", "patch", "delete")
# Raw JSON that no Python value serialises to: replaced in the body text.
_DEEP = "__DEEP_{}__"
_HUGE_FLOAT = "__1E400__"


@cache
def write_operations() -> list[tuple[str, str, list[str] | None]]:
    """(method, path template, request body property names) of every write operation; None
    for an operation that takes no body (DELETE ignores one)."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema.get("components", {}).get("schemas", {})
    out = []
    for path, item in schema["paths"].items():
        for method in WRITE_METHODS:
            if method not in item:
                continue
            if "requestBody" not in item[method]:
                out.append((method, path, None))
                continue
            body = item[method]["requestBody"].get("content", {})
            ref = next(iter(body.values()), {}).get("schema", {}).get("$ref", "") if body else ""
            props = list(components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})) if ref else []
            out.append((method, path, props))
    return out


def _operation_id(op: tuple[str, str, list[str] | None]) -> str:
    return f"{op[0].upper()} {op[1]}"


# Refused wherever they appear in a body (the parser's rules).
unstorable = st.one_of(
    st.text(max_size=5).map(lambda s: s + "\x00"),
    st.sampled_from(["\ud800", "a\udfffb", "\udbff"]),
    st.integers(min_value=2**63, max_value=2**90),
    st.just(_HUGE_FLOAT),
    st.integers(min_value=65, max_value=20_000).map(_DEEP.format),
)
# Refused by the field that gets them, where it has a bound (a reason may be "-7").
out_of_bounds = st.one_of(
    st.integers(min_value=2**31, max_value=2**62),
    st.integers(min_value=-(2**70), max_value=-1),
    st.integers(min_value=4_001, max_value=100_000).map(lambda n: "x" * n),
    st.floats(min_value=1e300, max_value=1e308),
)
hostile_value = st.one_of(unstorable, out_of_bounds)


def _body(fields: list[str]) -> st.SearchStrategy[str]:
    keys = st.sampled_from([*fields, "extra"]) if fields else st.sampled_from(["extra", "route", "reason"])
    shaped = st.dictionaries(keys, hostile_value, min_size=1, max_size=4).map(json.dumps)
    whole = st.one_of(
        st.integers(min_value=65, max_value=20_000).map(lambda n: "[" * n + "]" * n),
        st.integers(min_value=65, max_value=2_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    )
    return st.one_of(shaped, shaped, shaped, whole)


def _unstorable_in(body: str) -> bool:
    return bool(re.search(r"\\u0000|\\ud[89a-f]|__1E400__|__DEEP_|^\[{65}|^(\{\"a\":){65}", body)) or any(
        abs(int(m)) >= 2**63 for m in re.findall(r"-?\d{19,}", body)
    )


def _render(body: str) -> str:
    body = body.replace(f'"{_HUGE_FLOAT}"', "1e400")
    return re.sub(r'"__DEEP_(\d+)__"', lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), body)


def _rows() -> tuple[int, ...]:
    """Every model's row count, in one query."""
    tables = sorted({m._meta.db_table for m in apps.get_models()})
    with connection.cursor() as cursor:
        # Table names from the models, not from input.
        counts = ", ".join(f"(SELECT COUNT(*) FROM {connection.ops.quote_name(t)})" for t in tables)  # noqa: S608
        cursor.execute(f"SELECT {counts}")
        return tuple(cursor.fetchone())


@pytest.fixture
def targets(versions: Any, proposer: Any, admin: Any) -> dict[str, Any]:
    """An object for every path parameter, and a client for each kind of credential."""
    registration = register("fuzz-worker")
    run = openai_run(versions, worker=registration.worker)
    run_start(run_id=run.pk, worker=registration.worker, attempt=1)
    release = release_create(route="contract-summaries", candidate_version=1, actor=proposer)
    issued = make_token(admin, "admin")
    _, bootstrap = bootstrap_token_create()
    return {
        "params": {
            "slug": "contract-summaries",
            "number": "1",
            "release_id": str(release.pk),
            "run_id": str(run.pk),
            "worker_id": str(registration.worker.pk),
            "token_id": str(issued.token.pk),
        },
        "user": APIClient(HTTP_AUTHORIZATION=f"Token {issued.key}"),
        "worker": APIClient(HTTP_AUTHORIZATION=f"Token {registration.token}"),
        "bootstrap": APIClient(HTTP_AUTHORIZATION=f"Token {bootstrap}"),
    }


def _client_for(path: str, method: str, targets: dict[str, Any]) -> APIClient:
    if path.endswith("/workers/register"):
        return targets["bootstrap"]
    worker_paths = ("/start", "/progress", "/fail", "/workers/heartbeat")
    if path.endswith(worker_paths) or (path.endswith("/result") and method == "put"):
        return targets["worker"]
    return targets["user"]


def test_every_write_endpoint_is_fuzzed() -> None:
    operations = {_operation_id(op) for op in write_operations()}
    assert len(operations) >= 20, operations
    for expected in (
        "PUT /api/v1/runs/{run_id}/result",
        "POST /api/v1/workers/register",
        "POST /api/v1/routes/{slug}/versions/",
        "POST /api/v1/releases/{release_id}/approve",
    ):
        assert expected in operations


@pytest.mark.parametrize("operation", write_operations(), ids=_operation_id)
def test_hostile_bodies_never_get_a_5xx_nor_write_a_row(
    operation: tuple[str, str, list[str] | None], targets: dict[str, Any]
) -> None:
    method, template, fields = operation
    path = re.sub(r"\{(\w+)\}", lambda m: targets["params"].get(m.group(1), "1"), template)
    client = _client_for(path, method, targets)

    @settings(
        max_examples=10,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(body=_body(fields or []))
    def hostile(body: str) -> None:
        before = _rows()
        response = getattr(client, method)(path, data=_render(body), content_type="application/json")
        assert response.status_code < 500, (path, response.status_code, response.content[:300])
        if fields is not None and _unstorable_in(body):
            assert 400 <= response.status_code < 500, (path, body[:200], response.status_code)
        if response.status_code >= 400:
            # Refused: said as a problem, and nothing written.
            assert response["Content-Type"] == "application/problem+json"
            assert _rows() == before, (path, body[:200])

    hostile()
