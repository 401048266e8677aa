"""`…/endpoints/{name}/probe` (probe now, within ENDPOINT_PROBE_TIMEOUT_S) and
`routes/{slug}/endpoints/benchmark` (a standalone run on two endpoints, no release).

The endpoint resource itself (`routes/{slug}/endpoints/`, `…/endpoints/{name}/`) is served
by releases_app (`releases_app/api/endpoints.py`): its writes may set `expects:
release:<id>`, whose rule (an open release of the route) is releases_app's."""

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
from kernel.errors import NotFound
from live_app.api.serializers import EndpointBenchmarkIn, ProbeSerializer
from live_app.models import Endpoint
from live_app.selectors import endpoint_get
from live_app.services import endpoint_probe, endpoints_run_create


def route_for(request: Request, slug: str) -> Route:
    route = route_get(slug)
    ensure_route_access(request, route)
    return route


def endpoint_for(request: Request, slug: str, name: str) -> Endpoint:
    route = route_for(request, slug)
    endpoint = endpoint_get(route, name)
    if endpoint is None:
        raise NotFound(f"{slug!r} has no endpoint {name!r}.")
    return endpoint


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
        endpoint = endpoint_for(request, slug, name)
        probe = endpoint_probe(endpoint=endpoint, actor=actor_from_request(request))
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
        route = route_for(request, slug)
        given = EndpointBenchmarkIn(data=request.data)
        given.is_valid(raise_exception=True)
        v = given.validated_data
        run = endpoints_run_create(
            route=route,
            baseline=v["baseline"],
            candidate=v["candidate"],
            lane=v.get("lane"),
            actor=actor_from_request(request),
        )
        body = {"id": run.pk, "state": run.state, "lane": run.lane, "endpoints": run.endpoints}
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": f"/api/v1/runs/{run.pk}/"})
