"""Writing a contract version from the browser: a route's upload page, a text area (filled
with a version's document for an edit) or a file. Thin: the form, the same reading and the
same service as the API (`document_from_bytes`, `contract_version_create`); a refused
document is shown again as numbered lines with each error under the line it concerns, and
nothing is stored. The same roles and route scope as `POST routes/{slug}/versions/`."""

from __future__ import annotations

from typing import Any

import yaml
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts_app.permissions import ensure_route_access, has_role
from audit_app.actors import actor_from_request
from contracts_app import selectors, services
from contracts_app.document import MAX_DOCUMENT_BYTES, guess_format, normalize, validate_document
from contracts_app.document.lines import error_listing
from contracts_app.forms import VersionForm
from contracts_app.reading import document_from_bytes
from contracts_app.views.pages import route_or_404
from kernel.errors import DomainError, FieldError, NotFound

# The API's rule for an upload (contracts_app/api/views.py, VersionListApi: operator to POST).
UPLOAD_ROLE = "operator"


def _route_for_upload(request: HttpRequest, slug: str) -> Any:
    route = route_or_404(request, slug)
    try:
        ensure_route_access(request, route)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    if not has_role(request, UPLOAD_ROLE):
        raise PermissionDenied(f"Uploading a contract version needs the {UPLOAD_ROLE} role or higher.")
    return route


def _prefill(route: Any, number: str | None) -> tuple[str, Any]:
    """The YAML of version `number` (the active one without it), and that version."""
    version = None
    if number:
        try:
            version = selectors.version_get(route, int(number))
        except (ValueError, NotFound):
            raise Http404(f"Route {route.slug!r} has no version {number}.") from None
    elif route.active_version_id is not None:
        version = route.active_version
    if version is None:
        return "", None
    # The stored JSON (jsonb) keeps no key order; the schema's order reads as an author wrote it.
    try:
        ordered = normalize(validate_document(version.document))
    except DomainError:  # a version stored under rules that have changed since: as stored
        ordered = version.document
    return yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=100), version


@login_required
def version_upload(request: HttpRequest, slug: str) -> HttpResponse:
    route = _route_for_upload(request, slug)
    if request.method != "POST":
        text, base = _prefill(route, request.GET.get("from"))
        form = VersionForm(initial={"text": text})
        return _page(request, route, form, base=base)
    form = VersionForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, route, form, status=400)
    raw, name = _raw(form.cleaned_data)
    try:
        fmt = guess_format(name, raw)
        upload = services.contract_version_create(
            slug=route.slug,
            document=document_from_bytes(raw, fmt),
            source_format=fmt,
            actor=actor_from_request(request),
        )
    except DomainError as exc:
        return _page(request, route, form, error=exc, raw=raw, status=exc.status if exc.status < 500 else 400)
    number = upload.version.number
    if upload.created:
        messages.success(request, f"Stored as version {number} of {route.slug}.")
    else:
        messages.info(request, f"Nothing new: this document is already version {number} of {route.slug}.")
    return redirect("version-detail", route.slug, number)


def _raw(data: dict[str, Any]) -> tuple[bytes, str]:
    upload = data.get("file")
    if upload is not None:
        return upload.read(MAX_DOCUMENT_BYTES + 1), upload.name or ""
    return str(data["text"]).encode("utf-8", errors="surrogatepass"), ""


def _page(
    request: HttpRequest,
    route: Any,
    form: VersionForm,
    *,
    base: Any = None,
    error: DomainError | None = None,
    raw: bytes = b"",
    status: int = 200,
) -> HttpResponse:
    context: dict[str, Any] = {"route": route, "form": form, "base": base, "error": error, "nav": "routes"}
    if error is not None:
        errors = error.errors or [FieldError("", error.detail)]
        text = _listable(raw)
        if text is not None and form.is_bound and form.cleaned_data.get("file") is not None:
            # From a file: its text goes into the text area, to be fixed there.
            context["form"] = VersionForm(initial={"text": text})
        context["listing"] = error_listing(text, errors) if text is not None else None
        context["errors"] = errors
    return render(request, "contracts/version_upload.html", context, status=status)


def _listable(raw: bytes) -> str | None:
    """The text to number, when it is text and within the size limit (else the errors
    alone are shown: a 10 MB listing helps no one). Not with a NUL, which a page must not
    carry back into a form (the request guard refuses it in a form field)."""
    if not raw or len(raw) > MAX_DOCUMENT_BYTES or b"\x00" in raw:
        return None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
