"""`routes/{slug}/secret-bindings/` (list: viewers; bind: admins) and
`…/secret-bindings/{name}/` (read: viewers; change, delete: admins). A route-scoped token
reaches only its routes' bindings. No response ever holds a secret: SpecPact holds none."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app.permissions import role_permissions
from audit_app.actors import actor_from_request
from kernel.errors import NotFound
from live_app.api.serializers import DeleteIn, SecretBindingIn, SecretBindingPatchIn, SecretBindingSerializer
from live_app.api.views import route_for
from live_app.models import SecretBinding
from live_app.selectors import binding_get, bindings_of
from live_app.services.bindings import binding_create, binding_delete, binding_update


def binding_for(request: Request, slug: str, name: str) -> SecretBinding:
    route = route_for(request, slug)
    binding = binding_get(route, name)
    if binding is None:
        raise NotFound(f"{slug!r} has no secret binding {name!r}.")
    return binding


class SecretBindingListApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("admin" if self.request.method == "POST" else "viewer")

    @extend_schema(
        responses=SecretBindingSerializer(many=True),
        summary="A route's secret bindings (never the secrets)",
    )
    def get(self, request: Request, slug: str) -> Response:
        route = route_for(request, slug)
        return Response(SecretBindingSerializer(bindings_of(route), many=True).data)

    @extend_schema(
        request=SecretBindingIn,
        responses={201: SecretBindingSerializer},
        summary="Bind a secret to the route and the hosts it may be sent to (admins)",
        description='The route\'s endpoints then name it as their auth (`{"binding": NAME}`); its '
        "secret goes only to the hosts listed (`host`: any port; `host:port`: that port).",
    )
    def post(self, request: Request, slug: str) -> Response:
        route = route_for(request, slug)
        given = SecretBindingIn(data=request.data)
        given.is_valid(raise_exception=True)
        binding = binding_create(route=route, actor=actor_from_request(request), **given.validated_data)
        return Response(
            SecretBindingSerializer(binding).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/v1/routes/{slug}/secret-bindings/{binding.name}/"},
        )


class SecretBindingDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer" if self.request.method == "GET" else "admin")

    @extend_schema(responses=SecretBindingSerializer, summary="One secret binding (never the secret)")
    def get(self, request: Request, slug: str, name: str) -> Response:
        return Response(SecretBindingSerializer(binding_for(request, slug, name)).data)

    @extend_schema(
        request=SecretBindingPatchIn,
        responses=SecretBindingSerializer,
        summary="Change where a bound secret is read or its hosts (admins)",
        description="Endpoints keep the binding; a URL no longer on its hosts gets no secret.",
    )
    def patch(self, request: Request, slug: str, name: str) -> Response:
        binding = binding_for(request, slug, name)
        given = SecretBindingPatchIn(data=request.data)
        given.is_valid(raise_exception=True)
        binding = binding_update(binding=binding, actor=actor_from_request(request), **given.validated_data)
        return Response(SecretBindingSerializer(binding).data)

    @extend_schema(
        request=DeleteIn,
        responses={204: None},
        summary="Delete a secret binding (admins; 409 while an endpoint uses it)",
    )
    def delete(self, request: Request, slug: str, name: str) -> Response:
        binding = binding_for(request, slug, name)
        given = DeleteIn(data=request.data)
        given.is_valid(raise_exception=True)
        binding_delete(
            binding=binding, actor=actor_from_request(request), reason=given.validated_data["reason"]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
