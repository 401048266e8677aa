"""`POST /api/v1/workloads/`: 201 with name, digest and prompts; the same content again
200 with the same digest; every format; and bad input: too large (413, streamed: never
read), invalid lines (400 listing them, nothing stored), non-UTF-8, empty prompts,
prompts longer than the target's context."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from audit_app.models import AuditEvent
from tests.workloads.conftest import NAME, URL, client_for, upload
from tests.workloads.samples import SAMPLES, SHAREGPT, SPECPACT
from workloads_app.models import WorkloadContent, WorkloadVersion

pytestmark = pytest.mark.django_db


def test_it_stores_an_upload_and_answers_201_with_its_name_digest_and_prompts(operator: Any) -> None:
    response = upload(client_for(operator), SPECPACT)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == NAME and body["digest"].startswith("sha256:") and body["prompts"] == 3
    assert body["conversations"] == 2 and body["created"] is True
    assert body["dataset"] == f"workload:{NAME}@{body['digest']}"
    assert body["stats"]["turns"]["per_conversation"] == {"1": 1, "2": 1}
    assert response["Location"] == f"/api/v1/workloads/{NAME}@{body['digest']}/"
    version = WorkloadVersion.objects.get()
    stored = bytes(WorkloadContent.objects.get(version=version).data)
    assert stored.count(b"\n") == 3 and version.created_by == operator
    [event] = AuditEvent.objects.filter(action="workload.uploaded")
    assert event.after["digest"] == body["digest"] and event.actor == operator


def test_the_same_content_again_answers_200_with_the_same_digest_whatever_its_layout(operator: Any) -> None:
    client = client_for(operator)
    first = upload(client, SPECPACT).json()
    again = upload(client, SPECPACT)
    reordered = "\n\n".join(
        json.dumps(dict(reversed(list(json.loads(line).items()))), indent=None, separators=(" ,", " : "))
        for line in SPECPACT.splitlines()
    )
    relaid = upload(client, reordered + "\r\n")
    assert again.status_code == relaid.status_code == 200
    assert again.json()["digest"] == relaid.json()["digest"] == first["digest"]
    assert again.json()["created"] is False
    assert WorkloadVersion.objects.count() == 1


@pytest.mark.parametrize(
    ("fmt", "prompts"),
    [("specpact", 3), ("openai", 3), ("sharegpt", 3), ("vllm", 4), ("sglang", 2), ("mooncake", 3)],
)
def test_every_format_imports_through_the_api(operator: Any, fmt: str, prompts: int) -> None:
    response = upload(client_for(operator), SAMPLES[fmt], name=f"sample-{fmt}", format=fmt)
    assert response.status_code == 201, response.content
    assert (response.json()["format"], response.json()["prompts"]) == (fmt, prompts)


def test_a_multipart_upload_carries_the_file_and_its_options(operator: Any) -> None:
    file = io.BytesIO(SHAREGPT.encode())
    file.name = "sharegpt.json"
    response = client_for(operator).post(
        URL,
        data={"file": file, "name": NAME, "format": "sharegpt", "source": "production logs"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["source"] == "production logs" and response.json()["format"] == "sharegpt"


class ClaimsToBeHuge:
    """A request body that says it is 200 MB and would produce it if anyone read it all:
    counts what was read instead of holding it."""

    def __init__(self, size: int) -> None:
        self.size, self.read_bytes = size, 0

    def read(self, n: int = -1) -> bytes:
        n = self.size - self.read_bytes if n is None or n < 0 else min(n, self.size - self.read_bytes)
        self.read_bytes += n
        return b'{"prompt": "x"}\n'[:1] * n

    def readline(self, *args: Any) -> bytes:
        return self.read(64 * 1024)


@pytest.mark.parametrize("content_type", ["application/x-ndjson", "multipart/form-data; boundary=xyz"])
def test_a_200_mb_upload_is_refused_with_413_before_it_is_read(operator: Any, content_type: str) -> None:
    body = ClaimsToBeHuge(200 * 1024 * 1024)
    response = client_for(operator).generic(
        "POST",
        f"{URL}?name={NAME}",
        content_type=content_type,
        CONTENT_LENGTH=str(body.size),
        **{"wsgi.input": body},
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"][0]["path"] == "body"
    assert body.read_bytes == 0
    assert not WorkloadVersion.objects.exists()


def test_a_file_over_the_limit_in_a_small_enough_multipart_body_is_refused_too(
    operator: Any, settings: Any
) -> None:
    settings.WORKLOAD_MAX_BYTES = 100
    file = io.BytesIO(b'{"prompt": "' + b"x" * 200 + b'"}\n')
    file.name = "big.jsonl"
    response = client_for(operator).post(URL, data={"file": file, "name": NAME}, format="multipart")
    assert response.status_code == 413 and "limit is 100 bytes" in response.json()["detail"]
    raw = upload(client_for(operator), '{"prompt": "' + "x" * 200 + '"}\n')
    assert raw.status_code == 413
    assert not WorkloadVersion.objects.exists()


def test_invalid_jsonl_lines_answer_400_listing_their_numbers_and_nothing_is_stored(operator: Any) -> None:
    raw = '{"prompt": "fine"}\n{"prompt": "fine too"}\nnot json\n{"prompt": "ok"}\n{"messages": []}\n'
    response = upload(client_for(operator), raw)
    assert response.status_code == 400
    problem = response.json()
    assert problem["code"] == "invalid_workload" and "(lines 3, 5)" in problem["detail"]
    assert [e["path"] for e in problem["errors"]] == ["line 3", "line 5.messages"]
    assert (
        not WorkloadVersion.objects.exists()
        and not AuditEvent.objects.filter(action__startswith="workload").exists()
    )


def test_non_utf8_answers_400_naming_the_line(operator: Any) -> None:
    response = upload(client_for(operator), b'{"prompt": "ok"}\n{"prompt": "\xff\xfe"}\n')
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "line 2" and error["message"].startswith("not UTF-8")


def test_empty_prompts_answer_400_with_their_lines(operator: Any) -> None:
    raw = '{"prompt": "ok"}\n{"prompt": ""}\n{"messages": [{"role": "user", "content": ""}]}\n'
    response = upload(client_for(operator), raw)
    assert response.status_code == 400
    paths = [e["path"] for e in response.json()["errors"]]
    assert paths == ["line 2.prompt", "line 3.messages[0].content"]


def test_a_prompt_longer_than_the_targets_context_is_refused_with_its_line(operator: Any) -> None:
    long = " ".join(["word"] * 300)
    raw = f'{{"prompt": "short"}}\n{{"prompt": "{long}"}}\n'
    response = upload(client_for(operator), raw, context_tokens=256)
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "line 2" and "longer than the target's context of 256" in error["message"]


def test_a_prompt_that_fits_only_without_its_max_tokens_is_stored_with_a_warning(operator: Any) -> None:
    raw = '{"prompt": "' + " ".join(["word"] * 200) + '", "max_tokens": 100}\n{"prompt": "short"}\n'
    response = upload(client_for(operator), raw, context_tokens=256)
    assert response.status_code == 201
    [warning] = response.json()["warnings"]
    assert warning["line"] == 1 and "exceed the target's context of 256" in warning["message"]


def test_redaction_is_reported_in_counts_and_the_digest_is_of_the_redacted_text(operator: Any) -> None:
    raw = '{"prompt": "Write to bob@example.com about order ORD-1234567, or call 555 123 4567."}\n'
    client = client_for(operator)
    plain = upload(client, raw, name="plain").json()
    redacted = upload(client, raw, name="redacted", redact="true", redact_pattern="ORD-[0-9]%2B").json()
    assert plain["redaction"] is None
    assert redacted["redaction"] == {"email": 1, "phone": 1, "digits": 0, "pattern": 1}
    assert redacted["digest"] != plain["digest"]
    stored = bytes(WorkloadContent.objects.get(version__name="redacted").data).decode()
    assert "bob@example.com" not in stored and "[EMAIL]" in stored and "[REDACTED]" in stored


@pytest.mark.parametrize(
    ("query", "path"),
    [("name=Not%20A%20Name", "name"), ("name=ok&format=csv", "format"), ("format=specpact", "name")],
)
def test_bad_options_are_named(operator: Any, query: str, path: str) -> None:
    response = client_for(operator).post(
        f"{URL}?{query}", data=SPECPACT.encode(), content_type="application/x-ndjson"
    )
    assert response.status_code == 400
    assert path in [e["path"] for e in response.json()["errors"]]


def test_an_unsupported_content_type_is_415(operator: Any) -> None:
    response = client_for(operator).post(f"{URL}?name={NAME}", data=b"a,b\n", content_type="text/csv")
    assert response.status_code == 415 and response["Content-Type"] == "application/problem+json"


def test_a_viewer_cannot_upload(viewer: Any) -> None:
    assert upload(client_for(viewer), SPECPACT).status_code == 403
