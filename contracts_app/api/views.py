"""Routes, versions, diff and render endpoints: validate the request, call one service or
selector, serialize."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import ensure_route_access, role_permissions, visible_routes
from audit_app.actors import actor_from_request
from contracts_app import selectors, services
from contracts_app.api.serializers import (
    DiffQuerySerializer,
    DiffSerializer,
    RenderQuerySerializer,
    RenderSerializer,
    RouteCreateSerializer,
    RouteSerializer,
    RouteUpdateSerializer,
    VersionDetailSerializer,
    VersionSummarySerializer,
    VersionUploadSerializer,
)
from contracts_app.api.uploads import read_document
from contracts_app.document import (
    diff_documents,
    highest_impact,
    render,
    requires_benchmark,
    validate_document,
)
from contracts_app.filtersets import RouteFilterSet, VersionFilterSet
from contracts_app.models import ContractVersion, Route
from kernel.api.etags import IF_MATCH_PARAMETER, if_match_tags
from kernel.api.idempotency import idempotent
from kernel.api.pagination import paginate


def _route(request: Request, slug: str) -> Route:
    route = selectors.route_get(slug)
    ensure_route_access(request, route)
    return route


class RouteListApi(GenericAPIView[Route]):
    queryset = Route.objects.none()  # names the model for the schema; rows: route_list()
    filterset_class = RouteFilterSet
    serializer_class = RouteCreateSerializer  # what POST takes (the browsable API's form)

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(summary="List routes")
    @extend_schema(responses=RouteSerializer(many=True))
    def get(self, request: Request) -> Response:
        routes = self.filter_queryset(visible_routes(request, selectors.route_list()))
        return paginate(request, self, routes, RouteSerializer)

    @extend_schema(summary="Create a route")
    @extend_schema(request=RouteCreateSerializer, responses={201: RouteSerializer})
    @idempotent
    def post(self, request: Request) -> Response:
        data = RouteCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        route = services.route_create(**data.validated_data, actor=actor_from_request(request))
        return Response(RouteSerializer(route).data, status=status.HTTP_201_CREATED)


class RouteDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "PATCH" else "viewer")

    @extend_schema(summary="Show a route")
    @extend_schema(responses=RouteSerializer)
    def get(self, request: Request, slug: str) -> Response:
        route = _route(request, slug)
        return Response(RouteSerializer(route).data, headers={"ETag": route.etag})

    @extend_schema(summary="Change a route's description")
    @extend_schema(
        request=RouteUpdateSerializer,
        responses={200: RouteSerializer},
        parameters=[IF_MATCH_PARAMETER],
        examples=[
            OpenApiExample(
                "A new description",
                value={"description": "Summaries of supplier contracts (English, German)."},
                request_only=True,
            )
        ],
        description="Change the route's description. With If-Match (the ETag of your last read) a "
        "route changed since (its description or active version) is refused with 412.",
    )
    def patch(self, request: Request, slug: str) -> Response:
        _route(request, slug)  # 404 before validating, for a route the caller can't see
        data = RouteUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.route_update(
            slug=slug,
            description=data.validated_data["description"],
            if_match=if_match_tags(request),
            actor=actor_from_request(request),
        )
        fresh = selectors.route_get(slug)
        return Response(RouteSerializer(fresh).data, headers={"ETag": fresh.etag})


class VersionListApi(GenericAPIView[ContractVersion]):
    queryset = ContractVersion.objects.none()  # names the model for the schema; rows: version_list()
    filterset_class = VersionFilterSet
    serializer_class = VersionSummarySerializer

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(summary="List a route's contract versions")
    @extend_schema(responses=VersionSummarySerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        versions = self.filter_queryset(selectors.version_list(_route(request, slug)))
        return paginate(request, self, versions, VersionSummarySerializer)

    @extend_schema(summary="Upload a contract version")
    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT, "application/yaml": OpenApiTypes.STR},
        responses={201: VersionUploadSerializer, 200: VersionUploadSerializer},
        description="Upload a contract document (JSON, or YAML with Content-Type: application/yaml). "
        "The same document again returns the existing version with 200.",
    )
    @idempotent
    def post(self, request: Request, slug: str) -> Response:
        existing = Route.objects.filter(slug=slug).first()
        if existing is not None:
            ensure_route_access(request, existing)
        else:
            ensure_route_access(request, None, creating_slug=slug)
        document, fmt = read_document(request)
        upload = services.contract_version_create(
            slug=slug,
            document=document,
            source_format=fmt,
            actor=actor_from_request(request),
        )
        body = {
            **VersionSummarySerializer(upload.version).data,
            "created": upload.created,
            "diff_from_active": upload.diff_from_active,
        }
        code = status.HTTP_201_CREATED if upload.created else status.HTTP_200_OK
        headers = {"Location": f"/api/v1/routes/{slug}/versions/{upload.version.number}/"}
        return Response(body, status=code, headers=headers)


class VersionDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Show a contract version")
    @extend_schema(responses=VersionDetailSerializer)
    def get(self, request: Request, slug: str, number: int) -> Response:
        version = selectors.version_get(_route(request, slug), number)
        # A version never changes, so its digest is a strong validator.
        return Response(VersionDetailSerializer(version).data, headers={"ETag": f'"{version.digest}"'})


class DiffApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Diff two contract versions")
    @extend_schema(
        parameters=[
            OpenApiParameter("from", int, required=True),
            OpenApiParameter("to", int, required=True),
        ],
        responses=DiffSerializer,
    )
    def get(self, request: Request, slug: str) -> Response:
        query = DiffQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        route = _route(request, slug)
        old = selectors.version_get(route, query.validated_data["from"])
        new = selectors.version_get(route, query.validated_data["to"])
        changes = diff_documents(old.document, new.document)
        return Response(
            {
                "route": slug,
                "from": old.number,
                "to": new.number,
                "highest_impact": highest_impact(changes),
                "requires_benchmark": requires_benchmark(changes),
                "changes": [change.as_dict() for change in changes],
            }
        )


class RenderApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Render a version's engine command")
    @extend_schema(parameters=[OpenApiParameter("engine", str, required=False)], responses=RenderSerializer)
    def get(self, request: Request, slug: str, number: int) -> Response:
        query = RenderQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        version = selectors.version_get(_route(request, slug), number)
        rendered = render(validate_document(version.document), query.validated_data.get("engine"))
        return Response(
            {
                "route": slug,
                "version": version.number,
                "engine": rendered.engine,
                "argv": rendered.argv,
                "command": rendered.shell,
                "config": rendered.config,
                "notes": rendered.notes,
                "env": rendered.env,
            }
        )
