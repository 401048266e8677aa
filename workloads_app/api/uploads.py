"""Reading a workload upload ourselves, streamed, with its own size limit: a body that
says it is larger than `WORKLOAD_MAX_BYTES` is refused (413) before a byte of it is read,
and one that turns out larger while being read is refused as soon as it passes the limit,
so a 200 MB upload never sits in memory.

Two ways in: the raw JSONL body (`Content-Type: application/x-ndjson`, options in the
query string), or `multipart/form-data` with the file in `file` and the options as form
fields (Django spools the file to disk past `FILE_UPLOAD_MAX_MEMORY_SIZE`).

A raw body is spooled the same way (in memory up to SPOOL_IN_MEMORY, then a temporary
file) and hashed as it is read: the digest is the Idempotency-Key fingerprint of the
upload (kernel/api/idempotency.py), so a retry with other bytes is refused, not replayed.
For multipart it covers the file's bytes and the form fields (not the boundaries, which a
client draws anew for each try).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from typing import IO, Any

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
SPOOL_IN_MEMORY = 1024 * 1024


@dataclass(frozen=True)
class Upload:
    """The workload's bytes (a file at its start), the options as given, and the digest
    of both as they were read."""

    file: IO[bytes]
    params: dict[str, Any]
    digest: str


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


def read_upload(request: Request) -> Upload:
    """The upload, read once per request (the Idempotency-Key check reads it first)."""
    cached: Upload | None = getattr(request, "_workload_upload", None)
    if cached is None:
        cached = _read(request)
        request._workload_upload = cached  # type: ignore[attr-defined]
    return cached


def upload_digest(request: Request) -> str:
    return read_upload(request).digest


def _read(request: Request) -> Upload:
    limit = int(settings.WORKLOAD_MAX_BYTES)
    kind = media_type(request)
    params: dict[str, Any] = {k: request.query_params.getlist(k) for k in request.query_params}
    sha = hashlib.sha256()
    if kind == MULTIPART:
        django_request: HttpRequest = request._request
        refuse_nul_form_fields(django_request.POST)
        fields = {k: django_request.POST.getlist(k) for k in django_request.POST}
        params.update(fields)
        upload = django_request.FILES.get("file")
        if upload is None:
            raise DomainError("A multipart upload carries the workload in the field `file`.", errors=[])
        if upload.size is not None and upload.size > limit:
            raise too_large(upload.size)
        sha.update(json.dumps(fields, sort_keys=True).encode() + b"\n")
        for chunk in upload.chunks(CHUNK):
            sha.update(chunk)
        upload.seek(0)
        return Upload(upload, params, sha.hexdigest())
    if kind not in RAW_TYPES:
        raise DomainError(
            f"Unsupported Content-Type {kind or '(none)'!r}: send application/x-ndjson (the JSONL itself) "
            "or multipart/form-data with the file in `file`.",
            status=415,
            code="unsupported_media_type",
        )
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (the view's, to parse)
    size = 0
    stream = request._request
    while chunk := stream.read(CHUNK):
        size += len(chunk)
        if size > limit:
            spool.close()
            raise too_large(declared_length(request))
        sha.update(chunk)
        spool.write(chunk)
    spool.seek(0)
    return Upload(spool, params, sha.hexdigest())
