from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from accounts_app.permissions import (
    HasRole,
    ensure_route_access,
    has_role,
    require_role,
    scope_queryset,
    visible_routes,
)
from audit_app.actors import Actor
from contracts_app.models import Route
from kernel.errors import DomainError
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


class OperatorOnly(APIView):
    permission_classes = [HasRole("operator")]

    def get(self, request: Any) -> Response:
        return Response({"ok": True})


def _call(user: Any, token: Any = None) -> int:
    request = APIRequestFactory().get("/x")
    force_authenticate(request, user=user, token=token)
    return OperatorOnly.as_view()(request).status_code


def test_has_role_is_a_drf_permission_class(viewer: Any, operator: Any, approver: Any, admin: Any) -> None:
    assert HasRole("operator") is HasRole("operator")
    assert [_call(u) for u in (viewer, operator, approver, admin)] == [403, 200, 200, 200]


def test_a_tokens_role_caps_its_user(pipeline: Caller, approver: Any) -> None:
    from tests.support.factories import make_token

    viewer_token = make_token(approver, "viewer").token
    assert _call(approver, viewer_token) == 403
    assert _call(pipeline.user, pipeline.token) == 200


def test_require_role_takes_users_requests_and_actors(viewer: Any, approver: Any) -> None:
    require_role(approver, "approver")
    request = RequestFactory().get("/")
    request.user = approver
    require_role(request, "approver")
    require_role(Actor.for_user(approver), "operator")
    with pytest.raises(DomainError) as refused:
        require_role(viewer, "operator")
    assert refused.value.status == 403
    assert "viewer" in refused.value.detail
    with pytest.raises(DomainError):
        require_role(None, "viewer")
    with pytest.raises(ValueError, match="unknown role"):
        has_role(viewer, "owner")


def test_superusers_are_admins_and_users_without_a_role_are_viewers(admin: Any) -> None:
    from tests.support.factories import make_user

    plain = make_user("plain")
    assert has_role(admin, "admin")
    assert has_role(plain, "viewer") and not has_role(plain, "operator")


def test_route_scope_helpers(pipeline: Caller, outsider: Caller) -> None:
    Route.objects.create(slug="contract-summaries")
    Route.objects.create(slug="support-chat")
    request = APIRequestFactory().get("/")
    request.user, request.auth = pipeline.user, pipeline.token
    assert pipeline.token.allows_route("contract-summaries")
    assert not pipeline.token.allows_route(Route.objects.get(slug="support-chat"))
    assert [r.slug for r in visible_routes(request, Route.objects.all())] == ["contract-summaries"]
    assert scope_queryset(request, Route.objects.all(), "slug").count() == 1
    ensure_route_access(request, Route.objects.get(slug="contract-summaries"))
    with pytest.raises(DomainError) as hidden:
        ensure_route_access(request, Route.objects.get(slug="support-chat"))
    assert hidden.value.status == 404
    with pytest.raises(DomainError):
        ensure_route_access(request, None, creating_slug="brand-new")
