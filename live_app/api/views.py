"""`routes/{slug}/endpoints/` (list, register), `…/endpoints/{name}/` (read, change,
delete), `…/endpoints/{name}/probe` (probe now, within ENDPOINT_PROBE_TIMEOUT_S), and the
benchmarks on endpoints: `routes/{slug}/endpoints/benchmark` (a standalone run) and
`releases/{id}/benchmark` (a release waiting for its endpoints)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import ensure_route_access, role_permissions
from audit_app.actors import actor_from_request
from contracts_app.models import Route
from contracts_app.selectors import route_get
from live_app.api.serializers import (
    DeleteIn,
    EndpointBenchmarkIn,
    EndpointSerializer,
    LiveEndpointIn,
    LiveEndpointPatchIn,
    ProbeSerializer,
    ReleaseBenchmarkIn,
)
from live_app.models import Endpoint
from live_app.selectors import endpoint_get, endpoints_of
from live_app.services import (
    endpoint_create,
    endpoint_delete,
    endpoint_probe,
    endpoint_update,
    endpoints_run_create,
    release_benchmark_endpoints,
)
from releases_app.api.serializers import ReleaseDetailSerializer
from releases_app.api.views import release_detail_response
from releases_app.selectors import release_get
from specpact.errors import NotFound
from specpact.middleware import request_id_of


def _route(request: Request, slug: str) -> Route:
    route = route_get(slug)
    ensure_route_access(request, route)
    return route


def _endpoint(request: Request, slug: str, name: str) -> Endpoint:
    route = _route(request, slug)
    endpoint = endpoint_get(route, name)
    if endpoint is None:
        raise NotFound(f"{slug!r} has no endpoint {name!r}.")
    return endpoint


class EndpointListApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(
        responses=EndpointSerializer(many=True), summary="A route's live endpoints, last probe each"
    )
    def get(self, request: Request, slug: str) -> Response:
        route = _route(request, slug)
        return Response(EndpointSerializer(endpoints_of(route), many=True).data)

    @extend_schema(
        request=LiveEndpointIn, responses={201: EndpointSerializer}, summary="Register a live endpoint"
    )
    def post(self, request: Request, slug: str) -> Response:
        route = _route(request, slug)
        given = LiveEndpointIn(data=request.data)
        given.is_valid(raise_exception=True)
        v = given.validated_data
        endpoint = endpoint_create(
            route=route,
            name=v["name"],
            base_url=v["base_url"],
            engine=v["engine"],
            expects=v["expects"],
            metrics_url=v.get("metrics_url", ""),
            auth=v.get("auth"),
            actor=actor_from_request(request),
            request_id=request_id_of(request),
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
        endpoint = _endpoint(request, slug, name)
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
        endpoint = _endpoint(request, slug, name)
        given = LiveEndpointPatchIn(data=request.data)
        given.is_valid(raise_exception=True)
        endpoint = endpoint_update(
            endpoint=endpoint,
            actor=actor_from_request(request),
            request_id=request_id_of(request),
            **given.validated_data,
        )
        return Response(EndpointSerializer(endpoint).data)

    @extend_schema(request=DeleteIn, responses={204: None}, summary="Delete an endpoint (admins)")
    def delete(self, request: Request, slug: str, name: str) -> Response:
        endpoint = _endpoint(request, slug, name)
        given = DeleteIn(data=request.data)
        given.is_valid(raise_exception=True)
        endpoint_delete(
            endpoint=endpoint,
            actor=actor_from_request(request),
            reason=given.validated_data["reason"],
            request_id=request_id_of(request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class EndpointProbeApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        request=None,
        responses=ProbeSerializer,
        summary="Probe an endpoint now",
        description="Reads what the engine reports and compares it with the contract version the "
        "endpoint expects. Ends within ENDPOINT_PROBE_TIMEOUT_S; an unreachable or unreadable engine "
        "answers 200 with state `unknown` and the reason.",
    )
    def post(self, request: Request, slug: str, name: str) -> Response:
        endpoint = _endpoint(request, slug, name)
        probe = endpoint_probe(
            endpoint=endpoint, actor=actor_from_request(request), request_id=request_id_of(request)
        )
        return Response(ProbeSerializer(probe).data)


class EndpointBenchmarkApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        request=EndpointBenchmarkIn,
        responses={201: dict},
        summary="Benchmark two live endpoints (a standalone openai run)",
        description="Both endpoints are probed first; a drifted one answers 409 with the differences and "
        "nothing is created. The run's versions are what the endpoints expect.",
    )
    def post(self, request: Request, slug: str) -> Response:
        route = _route(request, slug)
        given = EndpointBenchmarkIn(data=request.data)
        given.is_valid(raise_exception=True)
        v = given.validated_data
        run = endpoints_run_create(
            route=route,
            baseline=v["baseline"],
            candidate=v["candidate"],
            lane=v.get("lane"),
            actor=actor_from_request(request),
            request_id=request_id_of(request),
        )
        body = {"id": run.pk, "state": run.state, "lane": run.lane, "endpoints": run.endpoints}
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": f"/api/v1/runs/{run.pk}/"})


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
            request_id=request_id_of(request),
            **given.validated_data,
        )
        return release_detail_response(release)
