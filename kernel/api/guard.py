"""The one place where request sizes, encodings and unstorable characters are checked,
before any view (or Django's own body parsing) runs.

- Body size: every request is held to DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB: contracts,
  decisions, reports), except the bodies settings.API_BODY_LIMITS names with their own
  limit (a worker's result upload and a workload upload, both left unread here because
  their views stream them; the result upload's view inflates gzip itself too, so that the
  body is read once into one buffer: kernel/api/body.py). The kernel knows no app's URL:
  the settings name them. Over a limit: 413 problem+json naming the limit and its setting.
- `Content-Encoding: gzip` on an API request is decompressed here, in bounded steps: the
  decompressed size counts against the same limit (a gzip bomb is a 413 after at most
  limit + 1 bytes were inflated). Any other encoding is a 415.
- A `charset` in Content-Type that is not a text encoding (bz2, zlib, base64, rot13 …:
  codecs Django would run on the query string and form, a parser on the body) or that
  no codec has is a 415 (`kernel.api.parsers.text_charset`). `charset_guard` wraps the
  WSGI application for this (`asgi_charset_guard` the ASGI one): Django builds the request
  (and decodes a query string with that charset) before any middleware runs.
- A NUL character in the path, the query string or a form field is refused (400) before
  it can reach PostgreSQL, which cannot store it. (Django already turns bytes that are not
  UTF-8, lone surrogates included, into U+FFFD or percent escapes.)
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.request import QueryDict
from django.template.loader import render_to_string

from kernel.api.parsers import content_type_charset, text_charset
from kernel.api.problems import problem_http_response, too_large_problem
from kernel.errors import DomainError, FieldError

API_PREFIX = "/api/"
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_STEP = 1024 * 1024


def _refused(status: int, detail: str, code: str, errors: list[FieldError] | None = None) -> DomainError:
    return DomainError(detail, status=status, code=code, errors=list(errors or []))


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def _own_limit(request: HttpRequest) -> dict[str, str | bool] | None:
    """The entry of settings.API_BODY_LIMITS this request's body falls under, if any."""
    for entry in settings.API_BODY_LIMITS:
        if request.method == entry["method"] and re.match(str(entry["path"]), request.path_info):
            return entry
    return None


def is_streamed_upload(request: HttpRequest) -> bool:
    """A body its view reads in chunks under its own limit (a workload upload)."""
    entry = _own_limit(request)
    return entry is not None and bool(entry.get("streamed"))


def view_inflates(request: HttpRequest) -> bool:
    """A streamed body whose view also inflates gzip itself, in chunks (kernel/api/body.py)."""
    entry = _own_limit(request)
    return is_streamed_upload(request) and bool(entry and entry.get("view_inflates"))


def body_limit(request: HttpRequest) -> tuple[int, str]:
    """(bytes, the setting that says so) for this request's body."""
    entry = _own_limit(request)
    setting = str(entry["setting"]) if entry else "DATA_UPLOAD_MAX_MEMORY_SIZE"
    return int(getattr(settings, setting)), setting


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        raise _refused(400, "Content-Length is not a number.", "bad_content_length") from None


def _inflate(compressed: bytes, limit: int, setting: str) -> bytes:
    """At most limit + 1 bytes are ever inflated, a step at a time."""
    inflater = zlib.decompressobj(_GZIP_WBITS)
    out = bytearray()
    data = compressed
    try:
        while True:
            chunk = inflater.decompress(data, _STEP)
            out += chunk
            if len(out) > limit:
                raise too_large_problem(limit, setting, what="The decompressed request body")
            data = inflater.unconsumed_tail
            if inflater.eof or not (data or chunk):
                break
    except zlib.error as exc:
        raise _refused(400, f"The body is not valid gzip: {exc}.", "bad_encoding") from None
    if not inflater.eof or inflater.unused_data:
        raise _refused(400, "The gzip body is truncated or has trailing data.", "bad_encoding")
    return bytes(out)


def _replace_body(request: HttpRequest, body: bytes) -> None:
    # `_body` set: Django's `request.body` returns it without its own size check (done
    # here), and DRF reads it as a fresh stream once `_read_started` is set.
    request._body = body
    request._stream = BytesIO(body)
    request._read_started = True  # type: ignore[attr-defined]
    request.META["CONTENT_LENGTH"] = str(len(body))


def _check_body(request: HttpRequest) -> None:
    limit, setting = body_limit(request)
    declared = _declared_length(request)
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    if encoding in ("", "identity"):
        if is_streamed_upload(request):
            return  # the upload's reader refuses a declared or streamed excess itself
        if declared > limit:
            raise too_large_problem(limit, setting)
        if limit > settings.DATA_UPLOAD_MAX_MEMORY_SIZE and declared:
            _replace_body(request, request.read(declared))
        return
    if not is_api(request):
        return  # pages never send encoded bodies; Django ignores the header there
    if view_inflates(request):
        return  # its reader applies these same rules while it reads (kernel/api/body.py)
    if encoding != "gzip":
        raise _refused(
            415,
            f"Content-Encoding {encoding!r} is not supported; send gzip or an unencoded body.",
            "unsupported_encoding",
        )
    if declared > limit:
        raise too_large_problem(limit, setting, what="The compressed request body")
    body = _inflate(request.read(declared) if declared else b"", limit, setting)
    del request.META["HTTP_CONTENT_ENCODING"]
    _replace_body(request, body)


def _nul_key(params: QueryDict) -> str | None:
    for key, values in params.lists():
        if "\x00" in key or any("\x00" in v for v in values if isinstance(v, str)):
            return key.replace("\x00", "\\0")
    return None


def refuse_nul_form_fields(form: QueryDict) -> None:
    """400 naming the first form field with a NUL (PostgreSQL cannot store one)."""
    if (key := _nul_key(form)) is not None:
        raise _refused(
            400, "A form field contains a NUL character.", "unsafe_input", [FieldError(key, "NUL")]
        )


def _check_charset(request: HttpRequest) -> None:
    # Before anything reads request.GET: Django decodes the query string with the
    # Content-Type's charset, and a bz2 one is a 500 there.
    _check_charset_header(request.META.get("CONTENT_TYPE", ""))


def _check_charset_header(content_type: str) -> None:
    charset = content_type_charset(content_type)
    if charset is not None:
        text_charset(charset)


def _check_text(request: HttpRequest) -> None:
    if "\x00" in request.path_info:
        raise _refused(400, "The path contains a NUL character.", "unsafe_input", [FieldError("path", "NUL")])
    if (key := _nul_key(request.GET)) is not None:
        raise _refused(
            400, "A query parameter contains a NUL character.", "unsafe_input", [FieldError(key, "NUL")]
        )
    content_type = request.META.get("CONTENT_TYPE", "")
    # A streamed upload's form fields are checked by its reader, once it has checked the size.
    is_form = (
        request.method == "POST" and content_type.startswith(_FORM_TYPES) and not is_streamed_upload(request)
    )
    if is_form:
        refuse_nul_form_fields(request.POST)


def charset_guard(app: Callable[..., Any]) -> Callable[..., Any]:
    """The WSGI application, answering a non-text charset with a 415 before Django sees it."""

    def guarded(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        try:
            _check_charset_header(str(environ.get("CONTENT_TYPE", "")))
        except DomainError as refused:
            response = problem_http_response(
                refused.status, refused.detail, code=refused.code, errors=refused.errors
            )
            start_response(f"{response.status_code} {response.reason_phrase}", list(response.items()))
            return [response.content]
        return app(environ, start_response)

    return guarded


def asgi_charset_guard(app: Callable[..., Any]) -> Callable[..., Any]:
    """The ASGI application, answering a non-text charset with a 415 before Django sees it."""

    async def guarded(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope.get("type") == "http":
            headers = dict(scope.get("headers") or [])
            try:
                _check_charset_header(headers.get(b"content-type", b"").decode("latin-1"))
            except DomainError as refused:
                response = problem_http_response(
                    refused.status, refused.detail, code=refused.code, errors=refused.errors
                )
                raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
                await send({"type": "http.response.start", "status": response.status_code, "headers": raw})
                await send({"type": "http.response.body", "body": response.content})
                return
        await app(scope, receive, send)

    return guarded


class RequestGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            _check_charset(request)
            _check_body(request)
            _check_text(request)
        except DomainError as refused:
            return self._answer(request, refused)
        except RequestDataTooBig:
            return self._answer(request, too_large_problem(*body_limit(request)))
        return self.get_response(request)

    @staticmethod
    def _answer(request: HttpRequest, refused: DomainError) -> HttpResponse:
        if is_api(request):
            return problem_http_response(
                refused.status, refused.detail, code=refused.code, errors=refused.errors, request=request
            )
        # A page's form: the browser shows this page, so it says what was refused in words.
        page = render_to_string("request_refused.html", {"status": refused.status, "detail": refused.detail})
        return HttpResponse(page, status=refused.status, content_type="text/html; charset=utf-8")
