"""The worker protocol (register, heartbeat) and the operators' view of workers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import IsAdmin, IsViewer, routes_in_scope
from audit_app.actors import actor_from_request
from benchmarks_app.api.authentication import (
    BootstrapTokenAuthentication,
    HasBootstrapToken,
    IsWorker,
    WorkerTokenAuthentication,
)
from benchmarks_app.api.serializers import HeartbeatIn, ReasonIn, RegisterIn, WorkerOut
from benchmarks_app.broker import visibility_timeout_s, worker_broker_url, worker_transport_options
from benchmarks_app.filtersets import WorkerFilterSet
from benchmarks_app.models import BootstrapToken, Worker
from benchmarks_app.selectors import worker_get, worker_list
from benchmarks_app.services.workers import worker_heartbeat, worker_register, worker_revoke


def _connection_info(worker: Any) -> dict[str, Any]:
    """What a worker needs to consume: its queues, the broker, the protocol's timings."""
    return {
        "queues": worker.queues,
        "broker_url": worker_broker_url(),
        "broker_transport_options": worker_transport_options(),
        "heartbeat_interval_s": settings.WORKER_HEARTBEAT_S,
        "offline_after_s": settings.WORKER_OFFLINE_AFTER_S,
        "visibility_timeout_s": visibility_timeout_s(),
    }


def _bootstrap(request: Request) -> BootstrapToken:
    assert isinstance(request.auth, BootstrapToken)  # HasBootstrapToken let the request in
    return request.auth


def _worker(request: Request) -> Worker:
    assert isinstance(request.auth, Worker)  # IsWorker let the request in
    return request.auth


class RegisterView(APIView):
    authentication_classes = [BootstrapTokenAuthentication]
    permission_classes = [HasBootstrapToken]

    @extend_schema(request=RegisterIn, responses={201: dict}, summary="Register a worker (bootstrap token)")
    def post(self, request: Request) -> Response:
        data = RegisterIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        registration = worker_register(
            bootstrap=_bootstrap(request),
            name=v["name"],
            host=v["host"],
            hardware=v["hardware"],
            engines=v["engines"],
            capabilities=v["capabilities"],
            agent_version=v["agent_version"],
            spec_versions=v["spec_versions"],
            extra_queues=v["queues"],
        )
        worker = registration.worker
        body = {
            "worker": WorkerOut(worker).data,
            # Shown once: only its hash is stored.
            "token": registration.token,
            **_connection_info(worker),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class HeartbeatView(APIView):
    authentication_classes = [WorkerTokenAuthentication]
    permission_classes = [IsWorker]

    @extend_schema(request=HeartbeatIn, responses={200: dict}, summary="Worker heartbeat (worker token)")
    def post(self, request: Request) -> Response:
        data = HeartbeatIn(data=request.data)
        data.is_valid(raise_exception=True)
        worker = worker_heartbeat(worker=_worker(request), current_run=data.validated_data["current_run"])
        return Response(
            {
                "worker": worker.pk,
                "status": worker.status,
                "last_heartbeat_at": worker.last_heartbeat_at,
                **_connection_info(worker),
            }
        )


def _scope(request: Request) -> dict[str, Any]:
    return {"routes_in_scope": routes_in_scope(request)}


class WorkerListView(GenericAPIView[Worker]):
    permission_classes = [IsViewer]
    queryset = Worker.objects.none()  # names the model for the schema; rows: worker_list()
    filterset_class = WorkerFilterSet
    serializer_class = WorkerOut
    pagination_class = None  # a fleet is a page: the list has always been a plain array

    @extend_schema(responses=WorkerOut(many=True), summary="List workers")
    def get(self, request: Request) -> Response:
        return Response(
            WorkerOut(self.filter_queryset(worker_list()), many=True, context=_scope(request)).data
        )


class WorkerDetailView(APIView):
    permission_classes = [IsViewer]

    @extend_schema(responses=WorkerOut, summary="A worker")
    def get(self, request: Request, worker_id: int) -> Response:
        return Response(WorkerOut(worker_get(worker_id), context=_scope(request)).data)


class WorkerRevokeView(APIView):
    permission_classes = [IsAdmin]

    @extend_schema(request=ReasonIn, responses=WorkerOut, summary="Revoke a worker's token (admin)")
    def post(self, request: Request, worker_id: int) -> Response:
        data = ReasonIn(data=request.data)
        data.is_valid(raise_exception=True)
        worker = worker_revoke(
            worker=worker_get(worker_id),
            actor=actor_from_request(request),
            reason=data.validated_data["reason"],
        )
        return Response(WorkerOut(worker_get(worker.pk)).data)
