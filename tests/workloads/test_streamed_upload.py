"""An upload is read as a stream: memory that doesn't grow with its lines, a ShareGPT array
read entry by entry, every bad line counted (the first 200 shown), and the Idempotency-Key
fingerprint of an upload is a digest of its bytes, so a retry with other bytes is a 422."""

from __future__ import annotations

import gc
import json
import tempfile
import tracemalloc
from typing import Any

import pytest

from tests.workloads.conftest import URL, client_for, upload
from worker.workloads.records import LineError, canonical_bytes, digest_of
from workloads_app.formats import import_upload
from workloads_app.formats.stats import workload_stats
from workloads_app.models import WorkloadContent, WorkloadVersion
from workloads_app.services import UploadOptions, workload_upload

PROBLEM = "application/problem+json"


@pytest.mark.django_db
def test_a_retry_with_the_same_key_and_other_bytes_of_the_same_length_is_a_422(operator: Any) -> None:
    client = client_for(operator)
    first, other = (
        client.post(
            f"{URL}?name=n0", data=body, content_type="application/x-ndjson", HTTP_IDEMPOTENCY_KEY="k1"
        )
        for body in (b'{"prompt": "aaaa"}\n', b'{"prompt": "bbbb"}\n')
    )
    assert first.status_code == 201
    assert other.status_code == 422, other.content
    assert other["Content-Type"] == PROBLEM
    assert [e["path"] for e in other.json()["errors"]] == ["Idempotency-Key"]
    assert WorkloadVersion.objects.count() == 1


@pytest.mark.django_db
def test_a_retry_with_the_same_key_and_bytes_replays_the_first_answer(operator: Any) -> None:
    client = client_for(operator)
    body = b'{"prompt": "aaaa"}\n'
    answers = [
        client.post(
            f"{URL}?name=n1", data=body, content_type="application/x-ndjson", HTTP_IDEMPOTENCY_KEY="k2"
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 201]
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert answers[0].json() == answers[1].json()


def _multipart(boundary: str, content: bytes) -> bytes:
    return (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nn2\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="w.jsonl"\r\n'
            f"Content-Type: application/x-ndjson\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )


@pytest.mark.django_db
def test_a_multipart_retry_is_fingerprinted_by_its_file_and_fields_not_its_boundary(operator: Any) -> None:
    client = client_for(operator)

    def post(boundary: str, content: bytes) -> Any:
        return client.post(
            URL,
            data=_multipart(boundary, content),
            content_type=f"multipart/form-data; boundary={boundary}",
            HTTP_IDEMPOTENCY_KEY="k3",
        )

    first = post("b1" * 10, b'{"prompt": "aaaa"}\n')
    retry = post("b2" * 10, b'{"prompt": "aaaa"}\n')
    other = post("b3" * 10, b'{"prompt": "bbbb"}\n')
    assert first.status_code == 201, first.content
    assert retry.status_code == 201 and retry["Idempotent-Replayed"] == "true"
    assert other.status_code == 422


@pytest.mark.django_db
def test_every_bad_line_is_counted_and_the_first_200_are_shown(operator: Any) -> None:
    body = "\n".join('{"prompt": ""}' for _ in range(1000))
    response = upload(client_for(operator), body)
    assert response.status_code == 400
    assert response.json()["detail"].startswith("The workload has 1000 invalid lines (lines 1, 2,")
    assert len(response.json()["errors"]) == 200
    assert not WorkloadVersion.objects.exists()


@pytest.mark.django_db
def test_the_content_row_holds_the_canonical_bytes_copied_in_chunks(operator: Any) -> None:
    lines = [json.dumps({"prompt": f"question {i} " + "é" * (i % 7)}) for i in range(30_000)]
    raw = ("\n".join(lines) + "\n").encode()
    version = workload_upload(name="big", raw=raw, options=UploadOptions(), actor=operator).version
    stored = bytes(WorkloadContent.objects.get(version=version).data)
    expected = canonical_bytes(import_upload(raw, "specpact").records)
    assert len(stored) > 256 * 1024 * 2  # more than two chunks of the copy
    assert stored == expected and version.digest == digest_of(expected)
    assert version.size_bytes == len(expected) and version.upload_bytes == len(raw)


def _conversations(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{i}",
            "conversations": [
                {"from": "human", "value": f"question {i} " + "x" * (i % 50)},
                {"from": "gpt", "value": f"answer {i}"},
                {"from": "human", "value": "and then?"},
            ],
        }
        for i in range(n)
    ]


def test_a_sharegpt_array_read_entry_by_entry_is_the_same_workload_as_its_lines() -> None:
    entries = _conversations(3000)  # ~300 KiB: entries cut by the reader's chunks
    entries.append({"id": "long", "conversations": [{"from": "human", "value": "y" * 200_000}]})
    as_array = json.dumps(entries, indent=1).encode()
    as_lines = "\n".join(json.dumps(e) for e in entries).encode()
    array = import_upload(as_array, "sharegpt")
    lines = import_upload(as_lines, "sharegpt")
    assert array.unit == "entry" and array.requests == 3000 * 2 + 1
    assert canonical_bytes(array.records) == canonical_bytes(lines.records)


def test_a_deep_or_out_of_range_sharegpt_entry_names_the_entry() -> None:
    deep = '[{"conversations": []}, ' + "[" * 10_000 + "]" * 10_000 + "]"
    with pytest.raises(LineError) as caught:
        import_upload(deep.encode(), "sharegpt")
    assert [(n, m) for n, _, m in caught.value.problems] == [(2, "nested more than 64 deep")]
    huge = '[{"conversations": [{"from": "human", "value": "x"}], "n": 1e999}]'
    with pytest.raises(LineError) as caught:
        import_upload(huge.encode(), "sharegpt")
    assert [(n, p) for n, p, _ in caught.value.problems] == [(1, "n")]


def _peak_bytes(lines: int) -> int:
    with tempfile.TemporaryFile() as file:
        for i in range(lines):
            # Every third line a turn of a two-turn conversation, the first with its answer.
            turn = (i // 3) % 2
            conversation = {"conversation": f"c{i // 6}", "turn": turn} if i % 3 == 0 else {}
            record = {"prompt": f"q{i} what is {i % 97}?", "max_tokens": 1 + i % 50, **conversation}
            if conversation and turn == 0:
                record["reference"] = f"answer {i} is {i % 89}"
            file.write(json.dumps(record).encode() + b"\n")
        file.seek(0)
        gc.collect()
        tracemalloc.start()
        try:
            imported = import_upload(file, "specpact")
            workload_stats(imported)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return peak


@pytest.mark.slow
def test_the_import_holds_constant_memory_whatever_the_number_of_lines() -> None:
    # Ten times the lines, about the same peak: nothing in memory grows with the count
    # (a list of records would be ~900 bytes a line: 90 MB more at 100k lines).
    small, large = _peak_bytes(5_000), _peak_bytes(50_000)
    assert large < 1.5 * small + 256 * 1024, (small, large)
