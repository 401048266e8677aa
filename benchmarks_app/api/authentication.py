"""The worker protocol's credentials: `Authorization: Token spw_…` (a worker's own token)
and, for registration only, `Authorization: Token spb_…` (a bootstrap token).

Worker endpoints accept nothing else, and user endpoints never accept these: a worker
token is not a user's API token (accounts_app), and it carries no role."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts_app.authentication import token_from_header
from benchmarks_app.models import BootstrapToken, Worker
from benchmarks_app.services.workers import bootstrap_token_for, worker_for_token


@dataclass(frozen=True)
class MachinePrincipal:
    """request.user for a worker or a bootstrap token: authenticated, but no user."""

    label: str
    is_authenticated: bool = True
    is_anonymous: bool = False
    is_active: bool = True
    pk: None = None

    def get_username(self) -> str:
        return self.label


class WorkerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[MachinePrincipal, Worker] | None:
        token = token_from_header(request)
        if token is None:
            return None
        worker = worker_for_token(token)
        if worker is None:
            raise AuthenticationFailed("Unknown or revoked worker token.")
        return MachinePrincipal(label=f"worker:{worker.name}"), worker

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class BootstrapTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[MachinePrincipal, BootstrapToken] | None:
        token = token_from_header(request)
        if token is None:
            return None
        bootstrap = bootstrap_token_for(token)
        if bootstrap is None:
            raise AuthenticationFailed("Unknown, expired or revoked bootstrap token.")
        return MachinePrincipal(label=f"bootstrap:{bootstrap.hint}"), bootstrap

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class IsWorker(BasePermission):
    message = "This endpoint takes a worker token (Authorization: Token spw_…)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, Worker)


class HasBootstrapToken(BasePermission):
    message = "Registration takes a bootstrap token (Authorization: Token spb_…)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, BootstrapToken)
