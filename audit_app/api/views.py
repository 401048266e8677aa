from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions, routes_in_scope
from audit_app.api.serializers import AuditEventSerializer, ChainStatusSerializer
from audit_app.chain import verify_chain
from audit_app.filtersets import AuditEventFilterSet
from audit_app.models import AuditEvent
from audit_app.selectors import audit_events
from specpact.api.pagination import paginate


class AuditListApi(GenericAPIView[AuditEvent]):
    queryset = AuditEvent.objects.none()  # names the model for the schema; rows: audit_events()
    filterset_class = AuditEventFilterSet
    serializer_class = AuditEventSerializer

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses=AuditEventSerializer(many=True))
    def get(self, request: Request) -> Response:
        events = self.filter_queryset(audit_events(routes_in_scope=routes_in_scope(request)))
        return paginate(request, self, events, AuditEventSerializer)


class AuditVerifyApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(responses=ChainStatusSerializer)
    def get(self, request: Request) -> Response:
        return Response(verify_chain())
