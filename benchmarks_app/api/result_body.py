"""A worker's result upload, read by its view rather than by DRF's parser: the body is
read in chunks into one buffer under RUN_RESULT_MAX_BYTES (gzip inflated as it is read:
kernel/api/body.py), parsed under the same safety rules as every JSON body
(`kernel.api.parsers.load_json`), and the buffer dropped as soon as it is parsed. DRF's
path held the body three times over (the guard's inflated copy, the stream's read, the
decoded text) and walked the parsed value once more for its safety check.

What DRF would answer stays the answer: a Content-Type no parser takes is a 415, an empty
body reads as `{}`, a charset that is not a text encoding a 415, broken JSON a 400."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.request import Request

from kernel.api.body import read_capped
from kernel.api.guard import body_limit
from kernel.api.parsers import content_type_charset, load_json


def read_result_body(request: Request) -> Any:
    django_request = request._request
    limit, setting = body_limit(django_request)
    if request.stream is None:  # DRF's test: no Content-Length (or 0) is an empty body, `{}`
        return {}
    negotiator, parsers = request.negotiator, request.parsers
    parser = negotiator.select_parser(request, parsers) if negotiator is not None and parsers else None
    if parser is None:
        raise UnsupportedMediaType(request.content_type)
    encoding = content_type_charset(request.content_type) or settings.DEFAULT_CHARSET
    raw = read_capped(django_request, limit, setting)
    if not raw:
        return {}
    try:
        return load_json(raw, encoding)
    finally:
        del raw  # before the view works on the parsed value, not after it
