"""`…/endpoints/{name}/probe` (ask for a probe: the control-plane worker runs it),
`…/endpoints/{name}/probes/{id}` (where a probe not done within the short wait is read) and
`routes/{slug}/endpoints/benchmark` (a standalone run on two endpoints, no release).

The endpoint resource itself (`routes/{slug}/endpoints/`, `…/endpoints/{name}/`) is served
by releases_app (`releases_app/api/endpoints.py`): its writes may set `expects:
release:<id>`, whose rule (an open release of the route) is releases_app's."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import ensure_route_access, role_permissions
from audit_app.actors import actor_from_request
from contracts_app.models import Route
from contracts_app.selectors import route_get
from kernel.errors import NotFound
from live_app.api.serializers import EndpointBenchmarkIn, ProbeRequestSerializer, ProbeSerializer
from live_app.choices import ProbeRequestState
from live_app.models import Endpoint, ProbeRequest
from live_app.selectors import endpoint_get, probe_request_get, probe_request_wait
from live_app.services import endpoints_run_create
from live_app.services.probe_requests import endpoint_probe_request


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


def probe_request_location(slug: str, endpoint: Endpoint, asked: ProbeRequest) -> str:
    return f"/api/v1/routes/{slug}/endpoints/{endpoint.name}/probes/{asked.pk}"


class EndpointProbeApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        request=None,
        responses={
            200: ProbeSerializer,
            202: ProbeRequestSerializer,
            503: OpenApiResponse(
                description="problem+json, code `broker_unavailable`: the probe could not be queued"
            ),
        },
        summary="Probe an endpoint",
        description="Reads what the engine reports and compares it with the contract version the "
        "endpoint expects. The control-plane worker probes, within ENDPOINT_PROBE_TIMEOUT_S; this waits "
        "ENDPOINT_PROBE_WAIT_S for it: 200 with the probe when it is done by then (an unreachable or "
        "unreadable engine is state `unknown` with the reason), else 202 with the request (`queued` or "
        "`running`) and `Location`, `…/endpoints/{name}/probes/{id}`, to read it from.",
    )
    def post(self, request: Request, slug: str, name: str) -> Response:
        endpoint = endpoint_for(request, slug, name)
        asked = endpoint_probe_request(endpoint=endpoint, actor=actor_from_request(request))
        asked = probe_request_wait(asked, float(settings.ENDPOINT_PROBE_WAIT_S))
        location = {"Location": probe_request_location(slug, endpoint, asked)}
        if asked.state == ProbeRequestState.DONE and asked.probe is not None:
            return Response(ProbeSerializer(asked.probe).data, headers=location)
        if asked.state == ProbeRequestState.FAILED:
            return Response(ProbeRequestSerializer(asked).data, headers=location)
        return Response(ProbeRequestSerializer(asked).data, status=status.HTTP_202_ACCEPTED, headers=location)


class EndpointProbeRequestApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(
        responses=ProbeRequestSerializer,
        summary="A requested probe: queued, running, done (with the probe) or failed (with the reason)",
    )
    def get(self, request: Request, slug: str, name: str, request_id: int) -> Response:
        endpoint = endpoint_for(request, slug, name)
        asked = probe_request_get(endpoint, request_id)
        if asked is None:
            raise NotFound(f"{slug}/{name} has no probe request {request_id}.")
        return Response(ProbeRequestSerializer(asked).data)


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
