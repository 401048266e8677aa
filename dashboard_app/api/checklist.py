"""`GET /api/v1/routes/{slug}/checklist`: the six checklist answers with evidence links
(the same selector as the route page and the route card)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import ensure_route_access, role_permissions
from contracts_app import selectors
from dashboard_app.selectors.checklist import EVIDENCE_KINDS, STATUS_WORDS, route_checklist


class ChecklistEvidenceSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=list(EVIDENCE_KINDS))
    label = serializers.CharField()  # type: ignore[assignment]  # a payload field, not Field.label
    url = serializers.URLField()


class ChecklistAnswerSerializer(serializers.Serializer[Any]):
    question = serializers.CharField()
    answer = serializers.CharField()
    status = serializers.ChoiceField(choices=list(STATUS_WORDS))
    evidence = ChecklistEvidenceSerializer(many=True)


class ChecklistSerializer(serializers.Serializer[Any]):
    route = serializers.CharField()
    active_version = serializers.IntegerField(allow_null=True)
    answers = ChecklistAnswerSerializer(many=True)


class ChecklistApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(
        responses=ChecklistSerializer, summary="The route's six checklist answers with evidence links"
    )
    def get(self, request: Request, slug: str) -> Response:
        route = selectors.route_get(slug)
        ensure_route_access(request, route)
        data = route_checklist(route).as_dict()
        # Evidence links are site paths on the page; absolute here, for pipelines and buyers.
        for answer in data["answers"]:
            for evidence in answer["evidence"]:
                evidence["url"] = request.build_absolute_uri(evidence["url"])
        return Response(data)
