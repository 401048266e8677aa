"""The advice endpoints (DESIGN §8 `routes/{slug}/advice/`, `advice/{id}/`): thin views
that check the shape, call one service and serialize. Outside a subject's route scope an
advice run (and a route's list) is 404."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from advice_app.api.serializers import AdviceCreateIn, AdviceDetailOut, AdviceOut, DraftOut
from advice_app.models import AdviceRun
from advice_app.selectors import advice_get, advice_list, advice_route
from advice_app.services import advice_cancel, advice_draft_create, advice_propose, advice_run_create
from audit_app.actors import actor_from_request
from benchmarks_app.api.serializers import ReasonIn  # one schema component for a reason body
from kernel.api.idempotency import idempotent
from kernel.api.pagination import paginate
from kernel.api.validation import validated
from releases_app.api.serializers import ReleaseDetailSerializer
from releases_app.api.views import release_detail_response


def _detail(advice: AdviceRun, request: Request, code: int = status.HTTP_200_OK) -> Response:
    fresh = advice_get(subject=request, advice_id=advice.pk)
    return Response(AdviceDetailOut(fresh).data, status=code)


class RouteAdviceListApi(GenericAPIView[AdviceRun]):
    queryset = AdviceRun.objects.none()  # names the model for the schema; rows: advice_list()
    serializer_class = AdviceCreateIn

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(summary="List a route's advice runs", responses=AdviceOut(many=True))
    def get(self, request: Request, slug: str) -> Response:
        route = advice_route(subject=request, slug=slug)
        return paginate(request, self, advice_list(subject=request, route=route), AdviceOut)

    @extend_schema(
        summary="Ask what the route's lanes should run: measure candidates against speculation off",
        request=AdviceCreateIn,
        responses={201: AdviceDetailOut},
    )
    @idempotent
    def post(self, request: Request, slug: str) -> Response:
        route = advice_route(subject=request, slug=slug)
        v = validated(AdviceCreateIn, request)
        advice = advice_run_create(
            route=route,
            lanes=v["lanes"],
            candidates=v["candidates"],
            budget=v["budget"],
            budget_gpu_minutes=v["budget_gpu_minutes"],
            seed=v["seed"],
            options=v["options"],
            actor=actor_from_request(request),
        )
        response = _detail(advice, request, status.HTTP_201_CREATED)
        response["Location"] = f"/api/v1/advice/{advice.pk}/"
        return response


class AdviceDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Show an advice run with its recommendation per lane", responses=AdviceDetailOut)
    def get(self, request: Request, advice_id: int) -> Response:
        return _detail(advice_get(subject=request, advice_id=advice_id), request)


class AdviceCancelApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(summary="Cancel an advice run (its runs stop; its records stay)", request=ReasonIn,
                   responses=AdviceDetailOut)  # fmt: skip
    def post(self, request: Request, advice_id: int) -> Response:
        advice = advice_get(subject=request, advice_id=advice_id)  # 404 before validating
        v = validated(ReasonIn, request)
        return _detail(
            advice_cancel(advice=advice, actor=actor_from_request(request), reason=v["reason"]), request
        )


class AdviceDraftApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        summary="The recommendation as a draft contract version, with its diff against the active one",
        request=None,
        responses={201: DraftOut, 200: DraftOut},
    )
    def post(self, request: Request, advice_id: int) -> Response:
        advice = advice_get(subject=request, advice_id=advice_id)
        draft = advice_draft_create(advice=advice, actor=actor_from_request(request))
        body = {
            "advice": advice.pk,
            "version": draft.version.number,
            "digest": draft.version.digest,
            "diff_from_active": draft.diff_from_active,
            "notes": draft.notes,
        }
        code = status.HTTP_201_CREATED if draft.created else status.HTTP_200_OK
        response = Response(DraftOut(body).data, status=code)
        response["Location"] = f"/api/v1/routes/{advice.route.slug}/versions/{draft.version.number}/"
        return response


class AdviceProposeApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("operator")

    @extend_schema(
        summary="Propose the draft: an ordinary release, benchmarked again by the gate",
        request=ReasonIn,
        responses={201: ReleaseDetailSerializer},
    )
    def post(self, request: Request, advice_id: int) -> Response:
        advice = advice_get(subject=request, advice_id=advice_id)
        v = validated(ReasonIn, request)
        release = advice_propose(advice=advice, actor=actor_from_request(request), reason=v["reason"])
        response = release_detail_response(release, status.HTTP_201_CREATED)
        response["Location"] = f"/api/v1/releases/{release.pk}/"
        return response
