"""Results of any realistic size: the result endpoint's own body limit, gzip bodies (and
gzip bombs), 413 problem+json naming the limit, the compact result schema 2, and results
stored in schema 1 still read."""

from __future__ import annotations

import copy
import csv
import gzip
import io
import json
import random
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import ValidationError

from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.gate import gate_input_from_harness
from benchmarks_app.models import RunResult
from benchmarks_app.selectors import release_gate_input
from tests.hardening.outcomes import as_schema_1, outcome_for, record
from worker.agent.client import ApiClient
from worker.harness.results.result import BenchResult
from worker.harness.validate import validate_result_stream

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
# Two levels of 64 requests of 512 tokens, both arms: about 2.4 MB, over the global 1 MiB.
BIG = {"concurrency": [1, 2], "requests_per_level": 64, "max_tokens": 512}


def _put(client: Any, run_id: int, body: bytes, **headers: str) -> Any:
    return client.put(f"/api/v1/runs/{run_id}/result", data=body, content_type="application/json", **headers)


def _json(outcome: dict[str, Any]) -> bytes:
    return json.dumps(outcome, separators=(",", ":")).encode()


def test_a_result_over_one_mib_uploads_plain_and_gzipped(claimed_run: Any, settings: Any) -> None:
    for encoding in ("identity", "gzip"):
        run, worker, spec = claimed_run(**BIG)
        outcome = outcome_for(spec, tokens=512)
        body = _json(outcome)
        assert len(body) > 2 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if encoding == "gzip":
            body = gzip.compress(body)
        response = _put(worker, run.pk, body, HTTP_CONTENT_ENCODING=encoding)
        assert response.status_code == 201, response.content[:500]
        stored = RunResult.objects.get(run=run)
        assert stored.payload == outcome
        assert [lv["requests"] for lv in stored.aggregates["candidate"]] == [64, 64]


def test_a_result_over_its_limit_is_a_413_naming_the_limit(claimed_run: Any, settings: Any) -> None:
    settings.RUN_RESULT_MAX_BYTES = 1024 * 1024
    run, worker, spec = claimed_run(**BIG)
    body = _json(outcome_for(spec, tokens=512))
    for encoded, headers in ((body, {}), (gzip.compress(body), {"HTTP_CONTENT_ENCODING": "gzip"})):
        response = _put(worker, run.pk, encoded, **headers)
        assert response.status_code == 413
        assert response["Content-Type"] == PROBLEM
        problem = response.json()
        assert "RUN_RESULT_MAX_BYTES" in problem["detail"] and "1048576 bytes" in problem["detail"]
        assert problem["errors"] == [
            {"path": "body", "message": "at most 1048576 bytes (RUN_RESULT_MAX_BYTES)"}
        ]
    assert not RunResult.objects.exists()


def _bomb(inflated: int) -> bytes:
    """A gzip stream of `inflated` zero bytes (about a thousandth of that compressed)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    parts = [packer.compress(chunk) for _ in range(inflated // len(chunk))]
    return b"".join([*parts, packer.flush()])


def test_a_gzip_bomb_is_refused_with_413_after_inflating_no_more_than_the_limit(
    claimed_run: Any, settings: Any
) -> None:
    settings.RUN_RESULT_MAX_BYTES = 8 << 20
    run, worker, _ = claimed_run()
    bomb = _bomb(256 << 20)  # 256 MiB of zeros in about 250 kB
    assert len(bomb) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    started = time.monotonic()
    response = _put(worker, run.pk, bomb, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 413 and response["Content-Type"] == PROBLEM
    assert "decompressed request body" in response.json()["detail"]
    assert "RUN_RESULT_MAX_BYTES" in response.json()["detail"]
    assert time.monotonic() - started < 30
    assert not RunResult.objects.exists()


def test_every_other_endpoint_keeps_the_small_global_limit(admin_client: Any, settings: Any) -> None:
    big = _json({"route": "contract-summaries", "candidate_version": 1, "reason": "x" * (2 << 20)})
    response = admin_client.post("/api/v1/releases/", data=big, content_type="application/json")
    assert response.status_code == 413 and response["Content-Type"] == PROBLEM
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["detail"]
    # Compressed small, inflated over the limit: the same.
    response = admin_client.post(
        "/api/v1/releases/", data=gzip.compress(big), content_type="application/json",
        HTTP_CONTENT_ENCODING="gzip",
    )  # fmt: skip
    assert response.status_code == 413 and "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["detail"]
    # A contract upload over the document's own limit is a 413 too.
    response = admin_client.post(
        "/api/v1/contracts/validate",
        data=b'{"x": "' + b"y" * 300_000 + b'"}',
        content_type="application/json",
    )
    assert response.status_code == 413 and "MAX_DOCUMENT_BYTES" in response.json()["detail"]


def test_an_unknown_encoding_is_415_and_broken_gzip_is_400(claimed_run: Any) -> None:
    run, worker, _ = claimed_run()
    response = _put(worker, run.pk, b"{}", HTTP_CONTENT_ENCODING="br")
    assert response.status_code == 415 and response["Content-Type"] == PROBLEM
    response = _put(worker, run.pk, b"\x1f\x8bnot gzip at all", HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM
    truncated = gzip.compress(b'{"attempt": 1}')[:-6]
    assert _put(worker, run.pk, truncated, HTTP_CONTENT_ENCODING="gzip").status_code == 400


def test_schema_2_stores_whole_microsecond_offsets_and_is_smaller_than_schema_1(claimed_run: Any) -> None:
    _, _, spec = claimed_run(concurrency=[1], requests_per_level=8, max_tokens=256)
    outcome = outcome_for(spec, tokens=256)
    request = outcome["baseline"]["levels"][0]["requests"][0]
    assert outcome["baseline"]["schema_version"] == 2 and "chunk_offsets_ms" not in request
    assert (
        all(isinstance(x, int) for x in request["chunk_offsets_us"])
        and len(request["chunk_offsets_us"]) == 256
    )
    # The same request as schema 1 wrote it (the harness's float clock readings) is larger.
    measured = record(random.Random(3), 0, 256, 1)
    v1, v2 = measured.model_dump(mode="json"), measured.compact().model_dump(mode="json")
    assert set(v1) - set(v2) == {"chunk_offsets_ms"} and set(v2) - set(v1) == {"chunk_offsets_us"}
    assert len(_json(v2)) < 0.8 * len(_json(v1))
    assert v2["chunk_offsets_us"] == [round(x * 1000) for x in v1["chunk_offsets_ms"]]


def test_a_result_of_the_previous_schema_uploads_and_stored_ones_are_still_read(
    claimed_run: Any, admin_client: Any
) -> None:
    run, worker, spec = claimed_run()
    new = outcome_for(spec, tokens=8)
    old = as_schema_1(new)
    response = _put(worker, run.pk, _json(old))
    assert response.status_code == 201, response.content
    stored = RunResult.objects.get(run=run)
    assert stored.payload["candidate"]["schema_version"] == 1
    # The aggregates, the gate's input and the CSV agree on both schemas.
    for arm in ("baseline", "candidate"):
        assert aggregate_result(old[arm]) == aggregate_result(new[arm])
    lanes = {"extraction": old["baseline"]}, {"extraction": old["candidate"]}
    from_old = gate_input_from_harness(baseline=lanes[0], candidate=lanes[1])
    from_new = gate_input_from_harness(
        baseline={"extraction": new["baseline"]}, candidate={"extraction": new["candidate"]}
    )
    assert [len(a.samples["itl_chunk"]) for a in from_old.candidate] == [
        len(a.samples["itl_chunk"]) for a in from_new.candidate
    ]
    # A result stored before aggregates were is aggregated from its raw schema 1 samples.
    RunResult.objects.filter(pk=stored.pk).update(aggregates={})
    run.refresh_from_db()
    stored_input = release_gate_input(run.release_id, samples=False, runs=[run])
    assert stored_input.aggregates["extraction"]["candidate"] == aggregate_result(old["candidate"])
    rows = list(
        csv.DictReader(io.StringIO(admin_client.get(f"/api/v1/runs/{run.pk}/result.csv").content.decode()))
    )
    assert len(rows) == 2 * 2 * 3 and {r["chunks"] for r in rows if r["arm"] == "baseline"} == {"8"}


def test_streaming_validation_refuses_what_the_whole_model_refuses_at_the_same_paths(
    claimed_run: Any,
) -> None:
    _, _, spec = claimed_run()
    arm = outcome_for(spec, tokens=8)["candidate"]
    breakages = {
        "ttft_ms": lambda d: d["levels"][1]["requests"][2].update(ttft_ms=-3.0),
        "offsets": lambda d: d["levels"][0]["requests"][0]["chunk_offsets_us"].reverse(),
        "aggregate": lambda d: d["levels"][0]["tpot_ms"].update(p50=d["levels"][0]["tpot_ms"]["p50"] * 0.5),
        "schema": lambda d: d["levels"][0]["requests"][1].update(
            chunk_offsets_ms=d["levels"][0]["requests"][1].pop("chunk_offsets_us")
        ),
        "max_tokens": lambda d: d.update(max_tokens=4),
    }
    for name, breaking in breakages.items():
        bad = copy.deepcopy(arm)
        breaking(bad)
        with pytest.raises(ValidationError) as whole:
            BenchResult.model_validate(bad)
        with pytest.raises(ValidationError) as streamed:
            validate_result_stream(bad)
        # The same places and words; the streaming check goes on past the first bad request.
        locs = {".".join(map(str, e["loc"])) for e in streamed.value.errors()}
        assert locs == {".".join(map(str, e["loc"])) for e in whole.value.errors()}, name
        assert {e["msg"] for e in whole.value.errors()} <= {e["msg"] for e in streamed.value.errors()}, name
    assert validate_result_stream(arm).max_tokens == 8


class _Capture(BaseHTTPRequestHandler):
    seen: dict[str, Any] = {}

    def do_PUT(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Capture.seen = {"encoding": self.headers.get("Content-Encoding"), "body": body}
        answer = b'{"created": true}'
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


def test_the_worker_sends_its_result_gzipped() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Capture)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = ApiClient(f"http://127.0.0.1:{server.server_address[1]}", token="spw_x")
        outcome = {"attempt": 1, "samples": list(range(10_000))}
        assert client.upload_result(7, outcome) == {"created": True}
        client.close()
    finally:
        server.shutdown()
    assert _Capture.seen["encoding"] == "gzip"
    assert json.loads(gzip.decompress(_Capture.seen["body"])) == outcome
    assert len(_Capture.seen["body"]) < len(json.dumps(outcome)) / 2
