"""Reading a workload upload ourselves, streamed, with its own size limit: a body that
says it is larger than `WORKLOAD_MAX_BYTES` is refused (413) before a byte of it is read,
and one that turns out larger while being read is refused as soon as it passes the limit,
so a 200 MB upload never sits in memory.

Two ways in: the raw JSONL body (`Content-Type: application/x-ndjson`, options in the
query string), or `multipart/form-data` with the file in `file` and the options as form
fields (Django spools the file to disk past `FILE_UPLOAD_MAX_MEMORY_SIZE`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.request import Request

from kernel.api.guard import refuse_nul_form_fields
from kernel.errors import DomainError
from workloads_app.services import too_large

RAW_TYPES = {
    "application/x-ndjson",
    "application/jsonl",
    "application/json",
    "text/plain",
    "application/octet-stream",
}
MULTIPART = "multipart/form-data"
# A multipart body carries boundaries and form fields around the file.
MULTIPART_SLACK = 64 * 1024
CHUNK = 64 * 1024


def media_type(request: HttpRequest | Request) -> str:
    return (request.META.get("CONTENT_TYPE") or "").split(";")[0].strip().lower()


def declared_length(request: HttpRequest | Request) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def refuse_if_declared_too_large(request: HttpRequest | Request) -> None:
    """Before anything reads the body (authentication included: a session's CSRF check
    would parse a multipart body)."""
    limit = int(settings.WORKLOAD_MAX_BYTES)
    declared = declared_length(request)
    slack = MULTIPART_SLACK if media_type(request) == MULTIPART else 0
    if declared is not None and declared > limit + slack:
        raise too_large(declared)


def read_upload(request: Request) -> tuple[bytes, dict[str, Any]]:
    """(the workload's bytes, the upload's options as given: query string and form fields)."""
    limit = int(settings.WORKLOAD_MAX_BYTES)
    kind = media_type(request)
    params: dict[str, Any] = {k: request.query_params.getlist(k) for k in request.query_params}
    if kind == MULTIPART:
        django_request: HttpRequest = request._request
        refuse_nul_form_fields(django_request.POST)
        for k in django_request.POST:
            params[k] = django_request.POST.getlist(k)
        upload = django_request.FILES.get("file")
        if upload is None:
            raise DomainError("A multipart upload carries the workload in the field `file`.", errors=[])
        if upload.size is not None and upload.size > limit:
            raise too_large(upload.size)
        return upload.read(limit + 1), params
    if kind not in RAW_TYPES:
        raise DomainError(
            f"Unsupported Content-Type {kind or '(none)'!r}: send application/x-ndjson (the JSONL itself) "
            "or multipart/form-data with the file in `file`.",
            status=415,
            code="unsupported_media_type",
        )
    chunks: list[bytes] = []
    size = 0
    stream = request._request
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise too_large(declared_length(request))
        chunks.append(chunk)
    return b"".join(chunks), params
