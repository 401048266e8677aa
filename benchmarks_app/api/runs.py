"""Runs: what operators and pipelines ask for and read, and the worker's side of a run
(start, progress, fail, result), each keyed by run id and attempt."""

from __future__ import annotations

from typing import Any, cast

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import IsOperator, IsViewer, ensure_route_access, scope_queryset
from audit_app.actors import actor_from_request
from benchmarks_app.api.authentication import IsWorker, WorkerTokenAuthentication
from benchmarks_app.api.result_body import read_result_body
from benchmarks_app.api.run_rows import run_out_row, run_out_rows
from benchmarks_app.api.serializers import (
    AttemptIn,
    FailIn,
    ProgressIn,
    ReasonIn,
    ResultIn,
    RunCreateIn,
    RunDetailOut,
    RunOut,
)
from benchmarks_app.exports import result_csv
from benchmarks_app.filtersets import RunFilterSet
from benchmarks_app.models import Run, Worker
from benchmarks_app.retention import samples_gone
from benchmarks_app.selectors import run_for_detail, run_get, run_list, runs_shown
from benchmarks_app.services.lifecycle import (
    run_fail,
    run_progress,
    run_result_upload,
    run_start,
    run_workload_check,
)
from benchmarks_app.services.runs import run_cancel, run_create
from contracts_app.models import ContractVersion, Route
from kernel.api.idempotency import idempotent
from kernel.api.pagination import NewestFirstCursorPagination
from kernel.api.validation import validated
from kernel.errors import DomainError, FieldError, NotFound
from kernel.memory import release_memory
from worker.spec import SPEC_VERSION, spec_json_schema
from workloads_app.api.views import content_response
from workloads_app.selectors import workload_by_ref, workload_content


class RunListView(GenericAPIView[Run]):
    queryset = Run.objects.none()  # names the model for the schema; rows: run_list()
    filterset_class = RunFilterSet
    serializer_class = RunCreateIn  # what POST takes (the browsable API's form)
    pagination_class = NewestFirstCursorPagination  # documents the envelope paginate_by_cursor gives

    def get_permissions(self) -> list[Any]:
        method = getattr(getattr(self, "request", None), "method", None)
        return [IsOperator()] if method == "POST" else [IsViewer()]

    @extend_schema(responses=RunOut(many=True), summary="List runs")
    def get(self, request: Request) -> Response:
        runs = self.filter_queryset(scope_queryset(request, run_list()))
        # RunOut's rows, built without its field walk (run_rows.py).
        paginator = NewestFirstCursorPagination()
        page = paginator.paginate_queryset(runs_shown(runs), request, view=self)
        return paginator.get_paginated_response(run_out_rows(page or []))

    @extend_schema(request=RunCreateIn, responses={201: RunDetailOut}, summary="Create a standalone run")
    @idempotent
    def post(self, request: Request) -> Response:
        v = validated(RunCreateIn, request)
        route = Route.objects.filter(slug=v["route"]).first()
        if route is None:
            raise NotFound(f"No route {v['route']!r}.")
        ensure_route_access(request, route)
        candidate = _version(route, v["candidate_version"], "candidate_version")
        if "baseline_version" in v:
            baseline = _version(route, v["baseline_version"], "baseline_version")
        elif route.active_version is not None:
            baseline = route.active_version
        else:
            raise DomainError(
                "the route has no active version: say which version is the baseline",
                errors=[FieldError("baseline_version", "required when the route has no active version")],
            )
        worker = None
        if "worker" in v:
            worker = Worker.objects.filter(pk=v["worker"]).first()
            if worker is None:
                raise DomainError("no such worker", errors=[FieldError("worker", f"no worker {v['worker']}")])
        overrides: dict[str, Any] = {
            k: v[k]
            for k in (
                "concurrency",
                "requests_per_level",
                "max_tokens",
                "warmup_requests",
                "seed",
                "time_limit_s",
            )
            if k in v
        }
        run = run_create(
            route=route,
            baseline=baseline,
            candidate=candidate,
            lane=v.get("lane"),
            actor=actor_from_request(request),
            engine_kind=v.get("engine"),
            endpoints=v.get("endpoints"),
            worker=worker,
            pool=v.get("pool"),
            overrides=overrides,
        )
        return Response(RunDetailOut(run_get(run.pk)).data, status=status.HTTP_201_CREATED)


def _version(route: Route, number: int, field: str) -> ContractVersion:
    version = ContractVersion.objects.filter(route=route, number=number).first()
    if version is None:
        raise DomainError(
            f"route {route.slug!r} has no version {number}",
            errors=[FieldError(field, f"route {route.slug!r} has no version {number}")],
        )
    return version


def _visible_run(request: Request, run_id: int) -> Any:
    run = run_get(run_id)
    ensure_route_access(request, run.route, missing=f"No run {run_id}.")  # as run_get words it
    return run


class RunDetailView(APIView):
    permission_classes = [IsViewer]

    @extend_schema(responses=RunDetailOut, summary="A run, with its specification and progress")
    def get(self, request: Request, run_id: int) -> Response:
        # RunDetailOut's row from the run's shown columns only (run_rows.py): not its
        # result's samples, workers or versions' documents.
        run = run_for_detail(run_id)
        ensure_route_access(request, cast(Any, run).route_slug, missing=f"No run {run_id}.")
        return Response(run_out_row(run, detail=True))


class RunCancelView(APIView):
    permission_classes = [IsOperator]

    @extend_schema(request=ReasonIn, responses=RunOut, summary="Cancel a queued or running run")
    def post(self, request: Request, run_id: int) -> Response:
        run = _visible_run(request, run_id)
        reason = validated(ReasonIn, request)["reason"]
        run_cancel(
            run=run,
            actor=actor_from_request(request),
            reason=reason,
        )
        return Response(RunOut(run_get(run_id)).data)


class SpecSchemaView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: dict}, summary="JSON schema of the run specification")
    def get(self, request: Request) -> Response:
        return Response({"spec_version": SPEC_VERSION, "schema": spec_json_schema()})


def _worker(request: Request) -> Worker:
    assert isinstance(request.auth, Worker)  # IsWorker let the request in
    return request.auth


class _WorkerRunView(APIView):
    authentication_classes = [WorkerTokenAuthentication]
    permission_classes = [IsWorker]


def _state(run: Any) -> dict[str, Any]:
    return {
        "id": run.pk,
        "attempt": run.attempt,
        "state": run.state,
        "progress": {"done": run.progress_done, "total": run.progress_total},
    }


class RunStartView(_WorkerRunView):
    @extend_schema(request=AttemptIn, responses={200: dict}, summary="Worker claims a run (queued → running)")
    def post(self, request: Request, run_id: int) -> Response:
        v = validated(AttemptIn, request)
        run = run_start(run_id=run_id, worker=_worker(request), attempt=v["attempt"])
        return Response(_state(run))


class RunProgressView(_WorkerRunView):
    @extend_schema(request=ProgressIn, responses={200: dict}, summary="Worker reports requests done / total")
    def post(self, request: Request, run_id: int) -> Response:
        v = validated(ProgressIn, request)
        run = run_progress(
            run_id=run_id,
            worker=_worker(request),
            attempt=v["attempt"],
            done=v["done"],
            total=v["total"],
            phase=v.get("phase", ""),
        )
        return Response(_state(run))


class RunFailView(_WorkerRunView):
    @extend_schema(request=FailIn, responses={200: dict}, summary="Worker reports that the run failed")
    def post(self, request: Request, run_id: int) -> Response:
        v = validated(FailIn, request)
        run = run_fail(
            run_id=run_id, worker=_worker(request), attempt=v["attempt"], kind=v["kind"], reason=v["reason"]
        )
        return Response(_state(run))


class RunResultView(APIView):
    """PUT with a worker token uploads; GET with a user's token reads it."""

    def _is_upload(self) -> bool:
        # No request while the OpenAPI schema is generated.
        return getattr(getattr(self, "request", None), "method", None) == "PUT"

    def get_authenticators(self) -> list[Any]:
        if self._is_upload():
            return [WorkerTokenAuthentication()]
        return super().get_authenticators()

    def get_permissions(self) -> list[Any]:
        return [IsWorker()] if self._is_upload() else [IsViewer()]

    @extend_schema(
        responses={200: dict, 410: dict},
        summary="A run's result (worker.spec.RunOutcome); 410 once its raw samples were pruned",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = _visible_run(request, run_id)
        if not hasattr(run, "result"):
            raise NotFound(f"Run {run_id} has no result yet (it is {run.state}).")
        r = run.result
        if gone := samples_gone(run.pk, r):
            raise gone
        return Response(
            {
                "run": run.pk,
                "attempt": r.attempt,
                "worker": r.worker_id,
                "received_at": r.received_at,
                "digest": r.digest,
                "result": r.payload,
            }
        )

    @extend_schema(
        request=dict, responses={200: dict, 201: dict}, summary="Upload a run's result (worker token)"
    )
    def put(self, request: Request, run_id: int) -> Response:
        try:
            return self._upload(request, run_id)
        finally:
            # The parsed result is gone: its pages, and the database connection's buffers
            # that held its text, go back to the system (kernel/memory.py).
            release_memory(database=True)

    def _upload(self, request: Request, run_id: int) -> Response:
        payload: Any = read_result_body(request)
        try:
            if not isinstance(payload, dict):
                raise DomainError("the result must be a JSON object")
            # Only the key: a serializer is a reference cycle (its fields point back at it),
            # and one holding the whole payload keeps it until a full collection.
            v = validated(ResultIn, {k: payload[k] for k in ("attempt",) if k in payload})
            result, created = run_result_upload(
                run_id=run_id, worker=_worker(request), attempt=v["attempt"], payload=payload
            )
            body = {"run": run_id, "attempt": result.attempt, "digest": result.digest, "created": created}
            return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
        finally:
            # An error's traceback keeps this frame: the payload goes now, not with the error.
            # (The returned row does not hold it: run_result_upload leaves it deferred.)
            payload = None


class RunResultCsvView(APIView):
    """The raw per-request samples of a run, one CSV row per request (arm × level)."""

    permission_classes = [IsViewer]

    @extend_schema(
        responses={(200, "text/csv"): str, 410: dict},
        summary="A run's per-request samples as CSV; 410 once the retention setting pruned them",
    )
    def get(self, request: Request, run_id: int) -> HttpResponse:
        run = _visible_run(request, run_id)
        if not hasattr(run, "result"):
            raise NotFound(f"Run {run_id} has no result yet (it is {run.state}).")
        if gone := samples_gone(run.pk, run.result):
            raise gone
        response = HttpResponse(result_csv(run.result.payload), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-requests.csv"'
        return response


class RunWorkloadView(_WorkerRunView):
    """The registered workload of a run, for the worker running it (and no one else: a
    worker token reaches only its own running run's workload). The bytes are sent as
    stored; the worker checks them against the digest in its spec."""

    @extend_schema(
        parameters=[OpenApiParameter("attempt", int, required=True)],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR},
        summary="Worker downloads its run's workload",
    )
    def get(self, request: Request, run_id: int) -> HttpResponse:
        v = validated(AttemptIn, request.query_params)
        run = run_workload_check(run_id=run_id, worker=_worker(request), attempt=v["attempt"])
        workload = run.spec.get("workload") or {}
        version = workload_by_ref(str(workload.get("name")), str(workload.get("digest")))
        if version is None:
            raise NotFound(f"run {run.pk} names no registered workload")
        return content_response(version.name, version.digest, workload_content(version))
