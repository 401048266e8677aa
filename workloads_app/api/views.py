"""`POST/GET workloads/`, `GET workloads/{name}/` (a name's versions),
`GET/DELETE workloads/{name}@sha256:{hex}/` (one version) and its `content`."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from audit_app.actors import actor_from_request
from kernel.api.idempotency import idempotent
from kernel.api.pagination import paginate
from kernel.errors import DomainError, FieldError
from workloads_app.api.serializers import (
    DeleteIn,
    UploadParams,
    WorkloadDetailSerializer,
    WorkloadSummarySerializer,
    first_values,
)
from workloads_app.api.uploads import read_upload, refuse_if_declared_too_large, upload_digest
from workloads_app.formats import FORMATS
from workloads_app.models import WorkloadVersion
from workloads_app.selectors import (
    split_ref,
    workload_by_ref,
    workload_content,
    workload_get,
    workload_versions,
    workloads_visible_to,
)
from workloads_app.services import UploadOptions, workload_delete, workload_upload

NDJSON = "application/x-ndjson"


class FormatNamesTheWorkloads(DefaultContentNegotiation):
    """`?format=` names the uploaded workload's format (the public API), not a renderer as
    DRF's URL format override would read it (a 404 for `format=sharegpt`)."""

    settings = SimpleNamespace(URL_FORMAT_OVERRIDE=None)  # type: ignore[assignment]


class WorkloadListApi(GenericAPIView[WorkloadVersion]):
    content_negotiation_class = FormatNamesTheWorkloads
    # Name the model and the page envelope for the schema; rows: workloads_visible_to().
    queryset = WorkloadVersion.objects.none()
    serializer_class = WorkloadSummarySerializer
    filter_backends: list[Any] = []  # `name` is the only filter, read in get()

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if request.method == "POST":
            refuse_if_declared_too_large(request)
        super().initial(request, *args, **kwargs)

    @extend_schema(
        parameters=[OpenApiParameter("name", str, required=False, description="only this name")],
        responses=WorkloadSummarySerializer(many=True),
        summary="Workloads you may see",
    )
    def get(self, request: Request) -> Response:
        qs = workloads_visible_to(request).order_by("name", "-created_at", "-id")
        if request.query_params.get("name"):
            qs = qs.filter(name=request.query_params["name"])
        return paginate(request, self, qs, WorkloadSummarySerializer)

    @extend_schema(
        parameters=[
            OpenApiParameter("name", str, required=True),
            OpenApiParameter("format", str, enum=list(FORMATS)),
            OpenApiParameter("source", str),
            OpenApiParameter("redact", bool),
            OpenApiParameter("redact_pattern", str, many=True),
            OpenApiParameter("context_tokens", int),
        ],
        request={NDJSON: OpenApiTypes.STR, "multipart/form-data": OpenApiTypes.OBJECT},
        responses={201: WorkloadDetailSerializer, 200: WorkloadDetailSerializer},
        summary="Upload or import a workload",
        description="The JSONL as the body (Content-Type: application/x-ndjson) with the options in the "
        "query string, or multipart/form-data with the file in `file`. The same content under the same "
        "name again answers 200 with the same digest.",
    )
    @idempotent(streamed=upload_digest)
    def post(self, request: Request) -> Response:
        uploaded = read_upload(request)
        params = UploadParams(data=first_values(uploaded.params))
        params.is_valid(raise_exception=True)
        v = params.validated_data
        upload = workload_upload(
            name=v["name"],
            raw=uploaded.file,
            options=UploadOptions(
                format=v["format"],
                source=v.get("source", ""),
                redact=v["redact"],
                redact_patterns=tuple(v.get("redact_pattern", [])),
                context_tokens=v.get("context_tokens"),
            ),
            actor=actor_from_request(request),
        )
        # Whoever sent the bytes may see what they describe (they are now one of its uploaders).
        version = workload_by_ref(upload.version.name, upload.version.digest)
        assert version is not None
        body = {
            **WorkloadDetailSerializer(version, context={"request": request}).data,
            "created": upload.created,
        }
        code = status.HTTP_201_CREATED if upload.created else status.HTTP_200_OK
        return Response(body, status=code, headers={"Location": f"/api/v1/workloads/{version.ref}/"})


class WorkloadDetailApi(APIView):
    """`key` is a name (its versions) or `name@sha256:<hex>` (one version)."""

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "DELETE" else "viewer")

    @extend_schema(responses=WorkloadDetailSerializer, summary="A workload name's versions, or one version")
    def get(self, request: Request, key: str) -> Response:
        name, digest = split_ref(key)
        if digest is not None:
            version = workload_get(request, name, digest)
            data = WorkloadDetailSerializer(version, context={"request": request}).data
            return Response(data, headers={"ETag": f'"{version.digest}"'})
        versions = workload_versions(request, name)
        latest = next((v for v in versions if getattr(v, "has_content", True)), None)
        return Response(
            {
                "name": name,
                "latest": WorkloadSummarySerializer(latest).data if latest else None,
                "versions": WorkloadSummarySerializer(versions, many=True).data,
            }
        )

    @extend_schema(request=DeleteIn, responses={200: dict}, summary="Delete a version's content")
    def delete(self, request: Request, key: str) -> Response:
        name, digest = split_ref(key)
        if digest is None:
            raise DomainError(
                "Delete one version: workloads/{name}@sha256:{hex}/.",
                errors=[FieldError("key", "name@sha256:<hex>")],
            )
        version = workload_get(request, name, digest)
        given = DeleteIn(data=request.data)
        given.is_valid(raise_exception=True)
        event = workload_delete(
            version=version,
            actor=actor_from_request(request),
            reason=given.validated_data["reason"],
        )
        return Response(
            {
                "name": version.name,
                "digest": version.digest,
                "deleted": True,
                "deleted_by": event.actor_label,
                "deleted_at": event.at,
                "audit_event": event.pk,
            }
        )


class WorkloadContentApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses={(200, NDJSON): OpenApiTypes.STR}, summary="The canonical JSONL of a version")
    def get(self, request: Request, key: str) -> HttpResponse:
        name, digest = split_ref(key)
        if digest is None:
            raise DomainError(
                "Name one version: name@sha256:<hex>.", errors=[FieldError("key", "name@sha256:<hex>")]
            )
        version = workload_get(request, name, digest)
        return content_response(version.name, version.digest, workload_content(version))


def content_response(name: str, digest: str, data: bytes | None) -> HttpResponse:
    """The stored bytes as they are (the reader checks them against `digest`), or 410."""
    if data is None:
        raise DomainError(f"The content of workload {name}@{digest} was deleted.", status=410, code="gone")
    response = HttpResponse(data, content_type=NDJSON)
    response["ETag"] = f'"{digest}"'
    response["X-Workload-Digest"] = digest
    response["Content-Disposition"] = f'attachment; filename="{name}.jsonl"'
    return response
