"""`Idempotency-Key` on every POST that creates something: one decorator, `@idempotent`.

A pipeline that lost a response retries with the same key and gets the first answer (its
status, body and Location/ETag headers, plus `Idempotent-Replayed: true`), not a second
object or a conflict it can't tell from a real one. The same key with another request
(method, path or body) is a 422. Keys are per caller (the token, or the user of a browser
session), stored in PostgreSQL (kernel.models.IdempotencyKey) so they hold across web
processes, and kept IDEMPOTENCY_KEY_TTL_S (24 h; beat purges older ones). A view that
streams its body itself (a workload upload) says how to digest it (`streamed=`): the body
is then read, under the view's limit, before the key's row is locked, and its digest is
part of the fingerprint.

Concurrency: the key's row is inserted first (`INSERT … ON CONFLICT DO NOTHING`, which waits
on a concurrent insert of the same key) and locked (`SELECT … FOR UPDATE`) in the transaction
the view runs in. Twenty concurrent repeats therefore queue on one row: the first runs the
view and stores its answer before it commits; the others then read that answer. A view that
raises rolls the row back with everything else, so a failed request can be retried with
its key.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.errors import DomainError, FieldError
from kernel.models import IdempotencyKey

HEADER = "Idempotency-Key"
_MAX_KEY = 255
# The answer's headers a replay repeats (the others are the server's, per response).
_REPLAYED_HEADERS = ("Location", "ETag")

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    HEADER,
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (a UUID) per intended creation, at most 255 visible ASCII characters. "
    "A repeat with the same key and body returns the first answer (header Idempotent-Replayed: true); "
    "the same key with another body is a 422. Keys are per token and kept 24 hours.",
)

View = TypeVar("View", bound=Callable[..., Response])
# A streamed body's digest: reads the request's body as its view will, returns a hex digest.
BodyDigest = Callable[[Request], str]


def _key(request: Request) -> str | None:
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    key = raw.strip()
    if not key or len(key) > _MAX_KEY or not all(33 <= ord(ch) <= 126 for ch in key):
        raise DomainError(
            f"{HEADER} must be 1 to {_MAX_KEY} visible ASCII characters.",
            code="invalid_idempotency_key",
            errors=[FieldError(HEADER, f"1 to {_MAX_KEY} visible ASCII characters, no spaces")],
        )
    return key


def _scope(request: Request) -> str | None:
    """Whose key this is: the token (a pipeline's), else the session's user."""
    auth = request.auth
    meta = getattr(auth, "_meta", None)
    if meta is not None and getattr(auth, "pk", None) is not None:
        return f"{meta.label_lower}:{auth.pk}"
    user = request.user
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return None


def _fingerprint(request: Request, *, streamed: BodyDigest | None) -> str:
    digest = hashlib.sha256()
    digest.update(f"{request.method} {request.get_full_path()}\n".encode())
    if streamed is not None:
        # The view's own reading of the body (chunked, under its limit), digested as read;
        # the media type without its parameters (a multipart boundary is new on each try).
        digest.update(f"{request.content_type.split(';')[0].strip().lower()}\n".encode())
        digest.update(streamed(request).encode())
    else:
        digest.update(f"{request.content_type}\n".encode())
        digest.update(request._request.body)  # Django keeps it for DRF's parser
    return digest.hexdigest()


def _replay(row: IdempotencyKey) -> Response:
    headers = dict(row.headers)
    content_type = headers.pop("Content-Type", None)
    data = json.loads(row.body) if row.body else None
    response = Response(data, status=row.status, headers={**headers, "Idempotent-Replayed": "true"})
    if content_type:
        response.content_type = content_type
    return response


def _store(row: IdempotencyKey, response: Response) -> None:
    data = getattr(response, "data", None)
    row.status = response.status_code
    # Stored as the client saw it (JSON text, its keys in order): a replay renders the same body.
    row.body = JSONRenderer().render(data).decode() if data is not None else ""
    row.headers = {name: response[name] for name in _REPLAYED_HEADERS if response.has_header(name)}
    if response.content_type:  # set by the view (problem+json); else the renderer's, as then
        row.headers["Content-Type"] = response.content_type
    row.save(update_fields=["status", "body", "headers"])


def _run_once(view_method: Callable[..., Response], streamed: BodyDigest | None) -> Callable[..., Response]:
    @functools.wraps(view_method)
    def handler(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = _key(request)
        scope = _scope(request) if key is not None else None
        if key is None or scope is None:
            return view_method(view, request, *args, **kwargs)
        fingerprint = _fingerprint(request, streamed=streamed)
        now = timezone.now()
        expires = now + timedelta(seconds=int(settings.IDEMPOTENCY_KEY_TTL_S))
        with transaction.atomic():
            IdempotencyKey.objects.bulk_create(
                [IdempotencyKey(scope=scope, key=key, fingerprint=fingerprint, expires_at=expires)],
                ignore_conflicts=True,
            )
            row = IdempotencyKey.objects.select_for_update().get(scope=scope, key=key)
            if row.expires_at <= now:  # expired but not yet purged: a new key
                row.fingerprint, row.status, row.body, row.headers = fingerprint, None, "", {}
                row.expires_at = expires
                row.save()
            if row.fingerprint != fingerprint:
                raise DomainError(
                    f"This {HEADER} was used with another request; send a new key for a new request.",
                    status=422,
                    code="idempotency_key_reused",
                    errors=[FieldError(HEADER, "already used with a different method, path or body")],
                )
            if row.status is not None:
                return _replay(row)
            response = view_method(view, request, *args, **kwargs)
            _store(row, response)
            return response

    return handler


def idempotent(view_method: View | None = None, *, streamed: BodyDigest | None = None) -> Any:
    """Decorate a creating POST handler (`def post(self, request, ...)`). For a view that
    reads its body itself in chunks (it is not buffered here), `streamed` is how: it reads
    the body as the view will (and keeps it for the view) and returns its digest."""

    def decorate(method: View) -> View:
        wrapped = _run_once(method, streamed)
        return extend_schema(parameters=[IDEMPOTENCY_PARAMETER])(wrapped)  # type: ignore[return-value]

    if view_method is not None:
        return decorate(view_method)
    return decorate


def purge_expired() -> int:
    """Delete keys past their expiry (beat runs it); returns how many."""
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
