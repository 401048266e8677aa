"""The result upload as its view reads it (benchmarks_app/api/result_body.py, kernel/api/body.py):
in chunks, under RUN_RESULT_MAX_BYTES, gzip inflated as it is read. Refusals are problem+json
with the field and reason, before the body is read where the size is declared, and nothing is
stored; a valid upload is stored as the previous implementation stored it (its digest,
`result_digest` over the parsed payload; the same payload and aggregates)."""

from __future__ import annotations

import gzip
import io
import json
import random
from typing import Any

import pytest
from django.db import connection

from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.models import Run, RunResult
from benchmarks_app.result_digest import result_digest
from tests.hardening.outcomes import outcome_for

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


class CountingStream(io.BytesIO):
    """A request's wsgi.input that remembers how many bytes were read from it."""

    def __init__(self, body: bytes) -> None:
        super().__init__(body)
        self.taken = 0

    def read(self, size: int | None = -1) -> bytes:
        got = super().read(size)
        self.taken += len(got)
        return got

    def readline(self, size: int | None = -1) -> bytes:
        got = super().readline(size)
        self.taken += len(got)
        return got


def _put_stream(
    client: Any, run_id: int, body: bytes, content_type: str = "application/json", **headers: str
) -> tuple[Any, CountingStream]:
    stream = CountingStream(body)
    extra = {"wsgi.input": stream, "CONTENT_LENGTH": str(len(body)), **headers}
    response = client.generic("PUT", f"/api/v1/runs/{run_id}/result", b"", content_type, **extra)
    return response, stream


def _nothing_stored(run: Run) -> None:
    assert not RunResult.objects.filter(run=run).exists()
    run.refresh_from_db()
    assert run.state == "running", run.state


def test_a_declared_oversize_body_is_a_413_before_a_byte_is_read(claimed_run: Any, settings: Any) -> None:
    settings.RUN_RESULT_MAX_BYTES = 4096
    run, worker, spec = claimed_run()
    body = json.dumps(outcome_for(spec, tokens=8)).encode()
    assert len(body) > 4096
    for headers in ({}, {"HTTP_CONTENT_ENCODING": "gzip"}):
        sent = gzip.compress(body) + b"\0" * 8192 if headers else body  # compressed, still over
        response, stream = _put_stream(worker, run.pk, sent, **headers)
        assert response.status_code == 413, response.content[:300]
        assert response["Content-Type"] == PROBLEM
        assert response.json()["errors"] == [
            {"path": "body", "message": "at most 4096 bytes (RUN_RESULT_MAX_BYTES)"}
        ]
        assert stream.taken == 0
    _nothing_stored(run)


def test_gzip_that_inflates_past_the_limit_stops_reading_at_the_limit(
    claimed_run: Any, settings: Any
) -> None:
    settings.RUN_RESULT_MAX_BYTES = 1536 * 1024
    run, worker, _ = claimed_run()
    # Random floats compress about 2.3 times: the compressed body (~1.3 MB) is under the
    # limit, so it is read; what it inflates to (~3 MB) is not.
    rng = random.Random(7)
    text = json.dumps({"attempt": 1, "noise": [rng.random() for _ in range(150_000)]}).encode()
    packed = gzip.compress(text)
    assert len(packed) < settings.RUN_RESULT_MAX_BYTES < len(text)
    response, stream = _put_stream(worker, run.pk, packed, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 413 and response["Content-Type"] == PROBLEM
    assert "decompressed request body" in response.json()["detail"]
    assert stream.taken <= len(packed) - 256 * 1024  # refused while reading: a chunk or more unread
    _nothing_stored(run)


@pytest.mark.parametrize(
    ("body", "headers", "status", "reason"),
    [
        (b'{"attempt": 1, "run_id": ', {}, 400, "JSON parse error"),  # truncated
        (b'{"attempt": 1,, }', {}, 400, "JSON parse error"),  # invalid
        (b'{"attempt": NaN}', {}, 400, "JSON parse error"),  # not a JSON number
        # mtime=0: gzip stamps the time into its header, and an id that differs between xdist
        # workers stops the run ("Different tests were collected").
        (gzip.compress(b'{"attempt": 1}', mtime=0)[:-6], {"HTTP_CONTENT_ENCODING": "gzip"}, 400, "truncated"),
        (b"not gzip at all", {"HTTP_CONTENT_ENCODING": "gzip"}, 400, "not valid gzip"),
        (b'{"attempt": 1}', {"HTTP_CONTENT_ENCODING": "br"}, 415, "Content-Encoding"),
        (b'{"attempt": 1}', {"content_type": "text/plain"}, 415, "text/plain"),
        (b'{"attempt": 1}', {"content_type": "application/json; charset=rot13"}, 415, "rot13"),
        (b"[1, 2]", {}, 400, "must be a JSON object"),
    ],
)
def test_a_broken_body_is_a_4xx_problem_with_its_reason_and_nothing_is_stored(
    claimed_run: Any, body: bytes, headers: dict[str, str], status: int, reason: str
) -> None:
    run, worker, _ = claimed_run()
    response, _ = _put_stream(worker, run.pk, body, **headers)
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == PROBLEM
    assert reason in json.dumps(response.json()), response.json()
    _nothing_stored(run)


def test_unsafe_values_and_deep_nesting_are_400_naming_the_path(claimed_run: Any) -> None:
    run, worker, spec = claimed_run()
    outcome = outcome_for(spec, tokens=8)
    outcome["candidate"]["levels"][0]["requests"][0]["prompt_id"] = "a\x00b"
    response, _ = _put_stream(worker, run.pk, json.dumps(outcome).encode())
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM
    assert response.json()["errors"] == [
        {"path": "candidate.levels[0].requests[0].prompt_id", "message": "contains a NUL character"}
    ]
    deep = b'{"attempt": 1, "x": ' + b"[" * 70 + b"]" * 70 + b"}"
    response, _ = _put_stream(worker, run.pk, deep)
    assert response.status_code == 400 and "deep" in json.dumps(response.json())
    _nothing_stored(run)


def test_an_empty_body_reads_as_an_empty_object_as_drf_did(claimed_run: Any) -> None:
    run, worker, _ = claimed_run()
    response, _ = _put_stream(worker, run.pk, b"", content_type="text/plain")
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM
    assert [e["path"] for e in response.json()["errors"]] == ["attempt"]
    _nothing_stored(run)


def test_a_valid_upload_is_stored_as_before_and_recognised_again(claimed_run: Any) -> None:
    for encoding in ("identity", "gzip"):
        run, worker, spec = claimed_run()
        outcome = outcome_for(spec, tokens=8)
        outcome["agent_version"] = "0.1.0 \u00e9\u2028\U0001f600"  # text past ASCII, as sent
        body = json.dumps(outcome, indent=1).encode()  # spacing and key order as a client may send
        sent = gzip.compress(body) if encoding == "gzip" else body
        response, stream = _put_stream(worker, run.pk, sent, HTTP_CONTENT_ENCODING=encoding)
        assert response.status_code == 201, response.content[:500]
        assert stream.taken == len(sent)
        stored = RunResult.objects.get(run=run)
        # The previous implementation: `result_digest` of the parsed payload, stored as parsed.
        assert stored.digest == result_digest(outcome) == response.json()["digest"]
        assert stored.payload == outcome
        assert stored.aggregates == {arm: aggregate_result(outcome[arm]) for arm in ("baseline", "candidate")}
        # The same result again, in other spacing and key order: the stored one, not a second.
        again = json.dumps(outcome, sort_keys=True, separators=(",", ":")).encode()
        response, _ = _put_stream(worker, run.pk, again)
        assert response.status_code == 200 and response.json()["created"] is False
        assert response.json()["digest"] == stored.digest
        assert RunResult.objects.filter(run=run).count() == 1


def test_the_payload_column_is_lz4_compressed_on_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL storage setting")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute "
            "WHERE attrelid = 'benchmarks_app_runresult'::regclass AND attname = 'payload'"
        )
        assert cursor.fetchone() == ("l",)
