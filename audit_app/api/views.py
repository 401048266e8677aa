from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions, routes_in_scope
from audit_app.api.serializers import AuditEventSerializer, AuditQuerySerializer, ChainStatusSerializer
from audit_app.chain import verify_chain
from audit_app.selectors import audit_events
from specpact.api.pagination import paginate


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
        return Response(verify_chain())
