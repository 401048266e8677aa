"""Uploading a workload from the browser: the API's service (`workload_upload`) with the
API's rule (operator to upload, workloads_app/api/views.py WorkloadListApi), its refusals
(each invalid line, a file over WORKLOAD_MAX_BYTES) shown on the page; nothing is stored
then."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from kernel.errors import DomainError, FieldError
from workloads_app.forms import WorkloadUploadForm
from workloads_app.services import UploadOptions, too_large, workload_upload

UPLOAD_ROLE = "operator"


@login_required
def workload_upload_page(request: HttpRequest) -> HttpResponse:
    if not has_role(request, UPLOAD_ROLE):
        raise PermissionDenied(f"Uploading a workload needs the {UPLOAD_ROLE} role or higher.")
    if request.method != "POST":
        return _page(request, WorkloadUploadForm())
    form = WorkloadUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    try:
        upload = data["file"]
        if upload.size is not None and upload.size > int(settings.WORKLOAD_MAX_BYTES):
            raise too_large(upload.size)
        result = workload_upload(
            name=data["name"],
            raw=upload.file,
            options=UploadOptions(
                format=data["format"],
                source=data["source"],
                redact=data["redact"],
                redact_patterns=form.patterns(),
                context_tokens=data["context_tokens"],
            ),
            actor=actor_from_request(request),
        )
    except DomainError as exc:
        return _page(request, form, error=exc, status=exc.status if exc.status < 500 else 400)
    version = result.version
    if result.created:
        messages.success(request, f"Stored workload {version.name} ({version.requests} requests).")
    else:
        messages.info(request, f"Nothing new: this content is already {version.name}@{version.digest[:19]}….")
    return redirect("workload-detail", version.ref)


def _page(
    request: HttpRequest, form: WorkloadUploadForm, *, error: DomainError | None = None, status: int = 200
) -> HttpResponse:
    errors = (error.errors or [FieldError("", error.detail)]) if error else []
    return render(
        request,
        "workloads/upload.html",
        {
            "form": form,
            "error": error,
            "errors": errors,
            "limit": int(settings.WORKLOAD_MAX_BYTES),
            "nav": "workloads",
        },
        status=status,
    )
