"""Token issue and revocation. Anyone signed in manages their own tokens; admins manage
everyone's. Tokens can't mint tokens unless they are unscoped admin tokens: a leaked
pipeline token must not be able to outlive its revocation."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts_app import services
from accounts_app.api.serializers import TokenIssueSerializer, TokenRevokeSerializer, TokenSerializer
from accounts_app.filtersets import TokenFilterSet
from accounts_app.models import ApiToken
from accounts_app.permissions import ensure_fleet_wide, has_role, is_fleet_admin, role_permissions, token_of
from accounts_app.selectors import tokens_visible_to, user_by_username
from audit_app.actors import actor_from_request
from kernel.api.pagination import paginate
from kernel.errors import DomainError, FieldError, Forbidden, NotFound


def _check_token_may_manage(request: Request) -> None:
    # A session limited to some routes manages its own tokens (held within them by
    # token_issue); a token acting on tokens must be an admin's over every route.
    token = token_of(request)
    if token is not None:
        ensure_fleet_wide(request, "manage tokens")
    if token is not None and not has_role(request, "admin"):
        raise Forbidden("Manage tokens from a signed-in session or with an unscoped admin token.")


def _visible(request: Request) -> Any:
    return tokens_visible_to(request.user, is_admin=is_fleet_admin(request))


def _token(request: Request, token_id: int) -> ApiToken:
    _check_token_may_manage(request)
    token = _visible(request).filter(pk=token_id).first()
    if token is None:
        raise NotFound(f"Token {token_id} not found.")
    return token


class TokenListApi(GenericAPIView[ApiToken]):
    queryset = ApiToken.objects.none()  # names the model for the schema; rows: tokens_visible_to()
    filterset_class = TokenFilterSet
    serializer_class = TokenIssueSerializer  # what POST takes (the browsable API's form)

    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="List API tokens")
    @extend_schema(responses=TokenSerializer(many=True))
    def get(self, request: Request) -> Response:
        _check_token_may_manage(request)
        return paginate(request, self, self.filter_queryset(_visible(request)), TokenSerializer)

    @extend_schema(summary="Issue an API token")
    @extend_schema(request=TokenIssueSerializer, responses={201: TokenSerializer})
    def post(self, request: Request) -> Response:
        """The response holds `key`, the whole token: it is shown this once and never again."""
        _check_token_may_manage(request)
        data = TokenIssueSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["user"]
        user: Any = request.user
        if username and username != request.user.get_username():
            user = user_by_username(username)
            if user is None:
                raise DomainError(
                    "The request is invalid; see errors.",
                    errors=[FieldError("user", f"no user {username!r}")],
                )
        issued = services.token_issue(
            user=user,
            role=data.validated_data["role"],
            routes=data.validated_data["routes"],
            name=data.validated_data["name"],
            expires_at=data.validated_data["expires_at"],
            purpose=data.validated_data["purpose"],
            actor=actor_from_request(request),
        )
        body = {**TokenSerializer(issued.token).data, "key": issued.key}
        return Response(body, status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})


class TokenDetailApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Show an API token")
    @extend_schema(responses=TokenSerializer)
    def get(self, request: Request, token_id: int) -> Response:
        return Response(TokenSerializer(_token(request, token_id)).data)

    @extend_schema(summary="Delete an API token")
    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        """Revoke (the row stays, for the audit trail)."""
        services.token_revoke(
            token=_token(request, token_id),
            actor=actor_from_request(request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRevokeApi(APIView):
    def get_permissions(self) -> list[Any]:
        return role_permissions("viewer")

    @extend_schema(summary="Revoke an API token")
    @extend_schema(request=TokenRevokeSerializer, responses=TokenSerializer)
    def post(self, request: Request, token_id: int) -> Response:
        data = TokenRevokeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = services.token_revoke(
            token=_token(request, token_id),
            actor=actor_from_request(request),
            reason=data.validated_data["reason"],
        )
        return Response(TokenSerializer(token).data)
