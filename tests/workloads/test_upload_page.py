"""The workload upload page (workloads_app/upload_page.py): an operator uploads a JSONL
file; its invalid lines are listed and nothing is stored; a viewer is refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.workloads.samples import SPECPACT
from workloads_app.models import WorkloadVersion

pytestmark = pytest.mark.django_db

URL = "/workload-upload/"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _file(raw: str | bytes, name: str = "w.jsonl") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, raw.encode() if isinstance(raw, str) else raw)


def test_an_operator_uploads_a_workload_and_lands_on_its_page(operator: Any) -> None:
    client = _client(operator)
    assert 'enctype="multipart/form-data"' in client.get(URL).content.decode()
    response = client.post(URL, {"name": "support-chat", "format": "specpact", "file": _file(SPECPACT)})
    version = WorkloadVersion.objects.get(name="support-chat")
    assert response.status_code == 302 and response["Location"] == f"/workloads/{version.ref}/"
    assert version.requests == 3
    page = client.get(response["Location"]).content.decode()
    assert "Stored workload support-chat (3 requests)" in page
    again = client.post(
        URL, {"name": "support-chat", "format": "specpact", "file": _file(SPECPACT)}, follow=True
    )
    assert "Nothing new" in again.content.decode()
    assert WorkloadVersion.objects.count() == 1


def test_invalid_lines_are_listed_and_nothing_is_stored(operator: Any) -> None:
    raw = SPECPACT + '{"prompt": 5}\nnot json\n'
    response = _client(operator).post(URL, {"name": "broken", "format": "specpact", "file": _file(raw)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Not saved: The workload has 2 invalid lines (lines 4, 5)" in html
    assert "<code>line 4" in html and "<code>line 5" in html
    assert not WorkloadVersion.objects.exists()


def test_bad_options_are_refused_with_their_field(operator: Any) -> None:
    bad_name = _client(operator).post(
        URL, {"name": "Bad Name!", "format": "specpact", "file": _file(SPECPACT)}
    )
    assert bad_name.status_code == 400 and "<code>name</code>" in bad_name.content.decode()
    no_file = _client(operator).post(URL, {"name": "x", "format": "specpact"})
    assert no_file.status_code == 400 and "This field is required" in no_file.content.decode()
    bad_pattern = _client(operator).post(
        URL,
        {
            "name": "x",
            "format": "specpact",
            "redact": "on",
            "redact_patterns": "(a)\\1",
            "file": _file(SPECPACT),
        },
    )
    assert bad_pattern.status_code == 400 and "redact_pattern" in bad_pattern.content.decode()
    assert not WorkloadVersion.objects.exists()


def test_invalid_utf8_is_a_clear_error(operator: Any) -> None:
    response = _client(operator).post(
        URL, {"name": "bytes", "format": "specpact", "file": _file(b'{"prompt": "\xff"}\n')}
    )
    assert response.status_code == 400
    assert "Not saved" in response.content.decode()
    assert not WorkloadVersion.objects.exists()


def test_a_file_over_the_limit_is_refused(operator: Any, settings: Any) -> None:
    settings.WORKLOAD_MAX_BYTES = 100
    response = _client(operator).post(URL, {"name": "big", "format": "specpact", "file": _file(SPECPACT)})
    # The request guard (kernel/api/guard.py) refuses the body before the view reads it.
    assert response.status_code == 413
    assert "larger than the limit of 100 bytes (WORKLOAD_MAX_BYTES)" in response.content.decode()
    # A page, in words, for the browser that sent the form (not plain text).
    assert response["Content-Type"].startswith("text/html")
    assert "Nothing was stored" in response.content.decode()
    assert not WorkloadVersion.objects.exists()


def test_a_viewer_may_not_upload(viewer: Any) -> None:
    client = _client(viewer)
    assert client.get(URL).status_code == 403
    assert client.post(URL, {"name": "x", "format": "specpact", "file": _file(SPECPACT)}).status_code == 403
    assert not WorkloadVersion.objects.exists()
    assert "Upload a workload" not in client.get("/workloads/").content.decode()
