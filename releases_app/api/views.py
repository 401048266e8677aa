from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from audit_app.actors import actor_from_request
from kernel.api.etags import IF_MATCH_PARAMETER
from kernel.api.idempotency import idempotent
from kernel.api.pagination import paginate
from kernel.errors import NotFound
from releases_app import selectors, services
from releases_app.api import examples
from releases_app.api.etags import expected_lock
from releases_app.api.release_rows import release_detail_row
from releases_app.api.serializers import (
    ApproveInputSerializer,
    DecisionInputSerializer,
    ReleaseCreateSerializer,
    ReleaseDetailSerializer,
    ReleaseSerializer,
)
from releases_app.filtersets import ReleaseFilterSet
from releases_app.models import Release
from releases_app.models.releases import ReleaseQuerySet


def _for_detail(releases: ReleaseQuerySet) -> ReleaseQuerySet:
    # The detail shows the versions' numbers, not their documents (decoding both was a
    # third of its CPU: issue 26, point 1).
    return releases.defer("baseline_version__document", "candidate_version__document")


def _detail_response(release: Release, code: int = status.HTTP_200_OK) -> Response:
    # ReleaseDetailSerializer's row, built without its field walk (release_rows.py).
    return Response(release_detail_row(release), status=code, headers={"ETag": release.etag})


def release_detail_response(release: Release, code: int = status.HTTP_200_OK) -> Response:
    """The release as it is now (read again after a write), with its ETag."""
    return _detail_response(_for_detail(Release.objects.with_versions()).get(pk=release.pk), code)


class ReleaseListApi(GenericAPIView[Release]):
    queryset = Release.objects.none()  # names the model for the schema; rows: release_list()
    filterset_class = ReleaseFilterSet
    serializer_class = ReleaseCreateSerializer  # what POST takes (the browsable API's form)

    def get_permissions(self) -> list[Any]:
        return role_permissions("operator" if self.request.method == "POST" else "viewer")

    @extend_schema(summary="List releases")
    @extend_schema(responses=ReleaseSerializer(many=True))
    def get(self, request: Request) -> Response:
        releases = self.filter_queryset(selectors.release_rows(subject=request))
        return paginate(request, self, releases, ReleaseSerializer)

    @extend_schema(summary="Propose a release")
    @extend_schema(
        request=ReleaseCreateSerializer,
        responses={201: ReleaseDetailSerializer},
        examples=[examples.PROPOSE, examples.PROPOSED],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = ReleaseCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        release = services.release_create(
            route=data.validated_data["route"],
            candidate_version=data.validated_data["candidate_version"],
            reason=data.validated_data["reason"],
            endpoints=data.validated_data.get("endpoints"),
            actor=actor_from_request(request),
        )
        response = release_detail_response(release, status.HTTP_201_CREATED)
        response["Location"] = f"/api/v1/releases/{release.pk}/"
        return response


class ReleaseDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Show a release with its gate verdict")
    @extend_schema(responses=ReleaseDetailSerializer)
    def get(self, request: Request, release_id: int) -> Response:
        # One read, scoped as release_get is (and worded as it words a miss); get(), not
        # first(): no ORDER BY for one primary key.
        try:
            release = _for_detail(selectors.release_list(subject=request)).get(pk=release_id)
        except Release.DoesNotExist:
            raise NotFound(f"Release {release_id} not found.") from None
        return _detail_response(release)


class _DecisionApi(APIView):
    """POST {"reason"} → the release after the transition, with its new ETag. If-Match
    with a stale ETag → 412; a transition the state refuses → 409."""

    role = "approver"
    input_serializer: type[DecisionInputSerializer] = DecisionInputSerializer
    service: Callable[..., Release]

    def get_permissions(self) -> list[Any]:
        return role_permissions(self.role)

    def post(self, request: Request, release_id: int) -> Response:
        selectors.release_get(subject=request, release_id=release_id)  # 404 before validating
        data = self.input_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        release = type(self).service(
            release=release_id,
            actor=actor_from_request(request),
            expected_lock=expected_lock(request, release_id),
            **data.validated_data,
        )
        return release_detail_response(release)


@extend_schema(summary="Approve a release")
@extend_schema(
    request=ApproveInputSerializer,
    responses=ReleaseDetailSerializer,
    parameters=[IF_MATCH_PARAMETER],
    examples=[examples.APPROVE, examples.OVERRIDE],
)
class ReleaseApproveApi(_DecisionApi):
    input_serializer = ApproveInputSerializer
    service = services.release_approve


@extend_schema(summary="Reject a release")
@extend_schema(
    request=DecisionInputSerializer,
    responses=ReleaseDetailSerializer,
    parameters=[IF_MATCH_PARAMETER],
    examples=[examples.DECIDE],
)
class ReleaseRejectApi(_DecisionApi):
    service = services.release_reject


@extend_schema(summary="Cancel a release")
@extend_schema(
    request=DecisionInputSerializer,
    responses=ReleaseDetailSerializer,
    parameters=[IF_MATCH_PARAMETER],
    examples=[examples.DECIDE],
)
class ReleaseCancelApi(_DecisionApi):
    role = "operator"  # the proposer may withdraw; the service lets other operators only if approver
    service = services.release_cancel


@extend_schema(summary="Roll a release back")
@extend_schema(
    request=DecisionInputSerializer,
    responses=ReleaseDetailSerializer,
    parameters=[IF_MATCH_PARAMETER],
    examples=[examples.DECIDE],
)
class ReleaseRollbackApi(_DecisionApi):
    service = services.release_rollback
