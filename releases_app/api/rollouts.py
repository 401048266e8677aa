"""The progressive-delivery gates: Argo Rollouts' analysis (GET) and Flagger's webhooks
(POST). What each answers is `releases_app.rollout_gate`; docs/pipelines.md shows the
manifests. Both take a rollout-gate token (`accounts_app.models.TokenPurpose`) or any
token with the viewer role on the route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.authentication import ApiTokenAuthentication
from accounts_app.permissions import role_permissions
from kernel.errors import DomainError, FieldError
from releases_app import rollout_gate, selectors
from releases_app.models import Release

_NO_STORE = {"Cache-Control": "no-store"}


class PhaseOut(serializers.Serializer[Any]):
    phase = serializers.CharField(
        help_text=f"{rollout_gate.SUCCESSFUL}, {rollout_gate.FAILED} or {rollout_gate.INCONCLUSIVE}: what an "
        "AnalysisTemplate's successCondition / failureCondition read"
    )
    reason = serializers.CharField()


class AnalysisOut(serializers.Serializer[Any]):
    """The answer's shape for the schema (`rollout_gate.release_analysis` builds it)."""

    release = serializers.IntegerField()
    route = serializers.CharField()
    state = serializers.CharField()
    baseline_version = serializers.IntegerField(allow_null=True)
    candidate_version = serializers.IntegerField()
    verdict = serializers.CharField(allow_null=True, help_text="pass, marginal, fail; null before the gate")
    result = PhaseOut()
    summary = serializers.CharField(allow_null=True)
    rules = serializers.ListField(child=serializers.DictField(), help_text="the gate's rules and verdicts")
    checks = serializers.ListField(
        child=serializers.DictField(),
        help_text="per rule, lane and level: estimate, ci_low, ci_high, confidence, required, verdict",
    )


class HookOut(serializers.Serializer[Any]):
    hook = serializers.CharField()
    allowed = serializers.BooleanField()
    reason = serializers.CharField()
    release = serializers.IntegerField()
    route = serializers.CharField()
    state = serializers.CharField()
    canary = serializers.CharField(help_text="namespace/name of the Flagger canary")


class _GateApi(APIView):
    accepts_rollout_gate_tokens = True  # accounts_app.authentication refuses them elsewhere

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")


class ReleaseAnalysisApi(_GateApi):
    @extend_schema(summary="A release's gate verdict for Argo Rollouts' web metric", responses=AnalysisOut)
    def get(self, request: Request, release_id: int) -> Response:
        release = selectors.release_get(subject=request, release_id=release_id)
        return Response(rollout_gate.release_analysis(release), headers=_NO_STORE)


class RouteAnalysisApi(_GateApi):
    @extend_schema(
        summary="The active release's gate verdict for Argo Rollouts' web metric", responses=AnalysisOut
    )
    def get(self, request: Request, slug: str) -> Response:
        release = rollout_gate.route_active_release(subject=request, slug=slug)
        return Response(rollout_gate.release_analysis(release), headers=_NO_STORE)


# Flagger -------------------------------------------------------------------------------


class FlaggerMetadataSerializer(serializers.Serializer[Any]):
    route = serializers.SlugField(max_length=64, help_text="the SpecPact route the canary serves")
    release = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="default: the route's newest release"
    )


class FlaggerPayloadSerializer(serializers.Serializer[Any]):
    """`CanaryWebhookPayload` (fluxcd/flagger v1.44.0, pkg/apis/flagger/v1beta1/canary.go):
    name, namespace, phase, checksum, metadata (map of strings)."""

    name = serializers.CharField(max_length=253)
    namespace = serializers.CharField(max_length=63)
    phase = serializers.CharField(max_length=40, required=False, allow_blank=True)
    checksum = serializers.CharField(max_length=200, required=False, allow_blank=True)
    metadata = serializers.DictField(child=serializers.CharField(max_length=200, allow_blank=True))

    def validate_metadata(self, value: dict[str, str]) -> dict[str, Any]:
        inner = FlaggerMetadataSerializer(data={k: v for k, v in value.items() if k != "token"})
        inner.is_valid(raise_exception=True)
        return dict(inner.validated_data)


class _FlaggerHookApi(_GateApi):
    # Flagger's webhook spec has no headers (fluxcd/flagger v1.44.0,
    # pkg/apis/flagger/v1beta1/canary.go `CanaryWebhook`: type, name, url, muteAlert,
    # timeout, metadata, retries, disableTLS), so its token travels in `metadata.token`,
    # which Flagger posts as the body's `metadata` (`CanaryWebhookPayload`); read by
    # accounts_app.authentication. No session: nothing but Flagger posts here.
    authentication_classes = [ApiTokenAuthentication]
    body_token_path = ("metadata", "token")
    hook = ""
    decide: Callable[[Release], tuple[bool, str]]

    @extend_schema(request=FlaggerPayloadSerializer, responses=HookOut)
    def post(self, request: Request) -> Response:
        payload = FlaggerPayloadSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        meta = payload.validated_data["metadata"]
        release = rollout_gate.canary_release(
            subject=request, route=meta["route"], release_id=meta.get("release")
        )
        allowed, reason = type(self).decide(release)
        body = {
            "hook": self.hook,
            "allowed": allowed,
            "reason": reason,
            "release": release.pk,
            "route": release.route.slug,
            "state": release.state,
            "canary": f"{payload.validated_data['namespace']}/{payload.validated_data['name']}",
        }
        if not allowed:
            raise DomainError(
                reason,
                status=403,
                code="gate_refused",
                errors=[FieldError("metadata", reason)],
                extensions=body,
            )
        return Response(body, headers=_NO_STORE)


@extend_schema_view(
    post=extend_schema(summary="Flagger confirm-rollout hook: 200 when the release may start")
)
class FlaggerConfirmRolloutApi(_FlaggerHookApi):
    """200 when the release is approved by someone other than its proposer (or active)."""

    hook = "confirm-rollout"
    decide = staticmethod(rollout_gate.confirm_rollout)


@extend_schema_view(
    post=extend_schema(summary="Flagger confirm-promotion hook: 200 when the canary may be promoted")
)
class FlaggerConfirmPromotionApi(_FlaggerHookApi):
    """200 when the release is approved or active and its analysis is Successful."""

    hook = "confirm-promotion"
    decide = staticmethod(rollout_gate.confirm_promotion)


@extend_schema_view(post=extend_schema(summary="Flagger rollback hook: 200 means roll the canary back now"))
class FlaggerRollbackApi(_FlaggerHookApi):
    """200 means *roll back now*: the release was rolled back, rejected, cancelled, failed
    or superseded, or a live acceptance alert is open on its version."""

    hook = "rollback"
    decide = staticmethod(rollout_gate.rollback_now)
