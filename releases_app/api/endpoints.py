"""The endpoint resource (`routes/{slug}/endpoints/`: list, register; `…/endpoints/{name}/`:
read, change, delete) and `releases/{id}/benchmark` (a release waiting for its endpoints).

Served here, not by live_app, because an endpoint's writes may set `expects:
release:<id>` and the rule for it (an open release of the route, whose candidate the
endpoint then serves) is releases_app's: `releases_app.services.endpoints`. Everything
else about endpoints is live_app's services and serializers, called directly."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from audit_app.actors import actor_from_request
from live_app.api.serializers import (
    DeleteIn,
    EndpointSerializer,
    LiveEndpointIn,
    LiveEndpointPatchIn,
    ProbeSerializer,
)
from live_app.api.views import endpoint_for, route_for
from live_app.selectors import endpoints_of
from live_app.services import endpoint_delete
from releases_app.api.serializers import ReleaseBenchmarkIn, ReleaseDetailSerializer
from releases_app.api.views import release_detail_response
from releases_app.selectors import release_get
from releases_app.services.endpoint_benchmark import release_benchmark_endpoints
from releases_app.services.endpoints import endpoint_change, endpoint_register


class EndpointListApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(
        responses=EndpointSerializer(many=True), summary="A route's live endpoints, last probe each"
    )
    def get(self, request: Request, slug: str) -> Response:
        route = route_for(request, slug)
        return Response(EndpointSerializer(endpoints_of(route), many=True).data)

    @extend_schema(
        request=LiveEndpointIn, responses={201: EndpointSerializer}, summary="Register a live endpoint"
    )
    def post(self, request: Request, slug: str) -> Response:
        route = route_for(request, slug)
        given = LiveEndpointIn(data=request.data)
        given.is_valid(raise_exception=True)
        v = given.validated_data
        endpoint = endpoint_register(
            route=route,
            name=v["name"],
            base_url=v["base_url"],
            engine=v["engine"],
            expects=v["expects"],
            metrics_url=v.get("metrics_url", ""),
            metrics_host_allowed=v.get("metrics_host_allowed", False),
            auth=v.get("auth"),
            actor=actor_from_request(request),
        )
        return Response(
            EndpointSerializer(endpoint).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/v1/routes/{slug}/endpoints/{endpoint.name}/"},
        )


class EndpointDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        role = {"DELETE": "admin", "PATCH": "operator"}.get(self.request.method or "", "viewer")
        return role_permissions(role)

    @extend_schema(responses=EndpointSerializer, summary="One endpoint and its last probe")
    def get(self, request: Request, slug: str, name: str) -> Response:
        endpoint = endpoint_for(request, slug, name)
        data = EndpointSerializer(endpoint).data
        if endpoint.last_probe is not None:
            data["last_probe"] = ProbeSerializer(endpoint.last_probe).data
        return Response(data)

    @extend_schema(
        request=LiveEndpointPatchIn,
        responses=EndpointSerializer,
        summary="Change an endpoint (operators)",
        description="Typically to point a canary at the release it now serves: "
        '`{"expects": "release:<id>"}`. The state is `unknown` until the next probe.',
    )
    def patch(self, request: Request, slug: str, name: str) -> Response:
        endpoint = endpoint_for(request, slug, name)
        given = LiveEndpointPatchIn(data=request.data)
        given.is_valid(raise_exception=True)
        endpoint = endpoint_change(
            endpoint=endpoint,
            actor=actor_from_request(request),
            **given.validated_data,
        )
        return Response(EndpointSerializer(endpoint).data)

    @extend_schema(request=DeleteIn, responses={204: None}, summary="Delete an endpoint (admins)")
    def delete(self, request: Request, slug: str, name: str) -> Response:
        endpoint = endpoint_for(request, slug, name)
        given = DeleteIn(data=request.data)
        given.is_valid(raise_exception=True)
        endpoint_delete(
            endpoint=endpoint,
            actor=actor_from_request(request),
            reason=given.validated_data["reason"],
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReleaseBenchmarkApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        request=ReleaseBenchmarkIn,
        responses=ReleaseDetailSerializer,
        summary="Benchmark a waiting release on its live endpoints",
        description="For a release proposed with `endpoints`: the baseline endpoint must expect `active`, "
        "the candidate `release:<id>`. Both are probed first (within ENDPOINT_PROBE_TIMEOUT_S each); a "
        "drifted one answers 409 with the differences, nothing starts and the release keeps waiting. "
        "Otherwise the release moves to `benchmarking` with one `openai` run per lane on the two "
        "endpoints; when they end, both are probed again, and a drift meanwhile fails the release.",
    )
    def post(self, request: Request, release_id: int) -> Response:
        release_get(subject=request, release_id=release_id)  # 404 before validating
        given = ReleaseBenchmarkIn(data=request.data)
        given.is_valid(raise_exception=True)
        release = release_benchmark_endpoints(
            release=release_id,
            actor=actor_from_request(request),
            **given.validated_data,
        )
        return release_detail_response(release)
