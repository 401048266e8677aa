from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import require_role, role_permissions, routes_in_scope
from audit_app.api.serializers import (
    AuditEventSerializer,
    ChainStatusSerializer,
    CheckpointSerializer,
    PublicKeySerializer,
)
from audit_app.filtersets import AuditEventFilterSet
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.selectors import audit_events, status_for_scope
from audit_app.signing import key_id, public_pem, verifying_key
from audit_app.verification import audit_status
from kernel.api.pagination import NewestFirstCursorPagination, paginate, paginate_by_cursor
from kernel.errors import DomainError, FieldError, NotFound

FLAGS = {"true": True, "1": True, "false": False, "0": False}


class AuditListApi(GenericAPIView[AuditEvent]):
    queryset = AuditEvent.objects.none()  # names the model for the schema; rows: audit_events()
    filterset_class = AuditEventFilterSet
    serializer_class = AuditEventSerializer
    pagination_class = NewestFirstCursorPagination  # documents the envelope paginate_by_cursor gives

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="List audit events")
    @extend_schema(responses=AuditEventSerializer(many=True))
    def get(self, request: Request) -> Response:
        events = self.filter_queryset(audit_events(routes_in_scope=routes_in_scope(request)))
        return paginate_by_cursor(request, self, events, AuditEventSerializer)


class AuditVerifyApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Verify the audit chain")
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "full",
                bool,
                description="walk the whole chain now (admin role: seconds of CPU at 100,000 "
                "events); otherwise only the events after the last verified one",
            )
        ],
        responses=ChainStatusSerializer,
    )
    def get(self, request: Request) -> Response:
        """The chain held to the signed checkpoints: the events after the stored mark hashed
        now, those before it by the last full walk (`checked` says which and when)."""
        raw = request.query_params.get("full", "false").lower()
        if raw not in FLAGS:
            raise DomainError(
                "full must be true or false", errors=[FieldError("full", "must be true or false")]
            )
        full = FLAGS[raw]
        if full:
            require_role(request, "admin")
        return Response(status_for_scope(audit_status(full=full), routes_in_scope(request)))


class AuditCheckpointListApi(GenericAPIView[AuditCheckpoint]):
    """Signed checkpoints of the chain's head, oldest first: keep a copy outside the
    database and check it offline with the public key (docs/audit-checkpoints.md)."""

    queryset = AuditCheckpoint.objects.none()  # names the model and the page for the schema
    serializer_class = CheckpointSerializer

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="List signed audit checkpoints")
    @extend_schema(responses=CheckpointSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, self, AuditCheckpoint.objects.order_by("id"), CheckpointSerializer)


class AuditPublicKeyApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="The checkpoints' public key")
    @extend_schema(responses=PublicKeySerializer)
    def get(self, request: Request) -> Response:
        """The key that verifies the checkpoints' signatures (Ed25519, PEM)."""
        public = verifying_key()
        if public is None:
            raise NotFound("No audit signing key is configured on this server.")
        return Response({"algorithm": "Ed25519", "key_id": key_id(public), "public_key": public_pem(public)})
