from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions, routes_in_scope
from audit_app.api.serializers import (
    AuditEventSerializer,
    AuditQuerySerializer,
    ChainStatusSerializer,
    CheckpointSerializer,
    PublicKeySerializer,
)
from audit_app.checkpoints import verify_audit
from audit_app.models import AuditCheckpoint
from audit_app.selectors import audit_events
from audit_app.signing import key_id, public_pem, verifying_key
from specpact.api.pagination import paginate
from specpact.errors import NotFound


class AuditListApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(
        parameters=[
            OpenApiParameter("action", str, description="an action, or a prefix: `release` → release.*"),
            OpenApiParameter("route", str, description="route slug"),
            OpenApiParameter(
                "actor", str, description="`user:alice`, `token:<prefix>`, `worker:gpu-1` or a username"
            ),
            OpenApiParameter("object", str, description="`type:id` (`release:12`) or a type"),
            OpenApiParameter("since", str, description="ISO 8601 time, inclusive"),
            OpenApiParameter("until", str, description="ISO 8601 time, exclusive"),
        ],
        responses=AuditEventSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        query = AuditQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        events = audit_events(
            action=q["action"],
            route=q["route"],
            actor=q["actor"],
            obj=q["object"],
            since=q["since"],
            until=q["until"],
            routes_in_scope=routes_in_scope(request),
        )
        return paginate(request, self, events, AuditEventSerializer)


class AuditVerifyApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses=ChainStatusSerializer)
    def get(self, request: Request) -> Response:
        """The walk of the whole chain, held to the signed checkpoints."""
        return Response(verify_audit())


class AuditCheckpointListApi(APIView):
    """Signed checkpoints of the chain's head, oldest first: keep a copy outside the
    database and check it offline with the public key (docs/audit-checkpoints.md)."""

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses=CheckpointSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, self, AuditCheckpoint.objects.order_by("id"), CheckpointSerializer)


class AuditPublicKeyApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses=PublicKeySerializer)
    def get(self, request: Request) -> Response:
        """The key that verifies the checkpoints' signatures (Ed25519, PEM)."""
        public = verifying_key()
        if public is None:
            raise NotFound("No audit signing key is configured on this server.")
        return Response({"algorithm": "Ed25519", "key_id": key_id(public), "public_key": public_pem(public)})
