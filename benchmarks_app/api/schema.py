"""How the worker protocol's tokens are sent, for the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class WorkerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "benchmarks_app.api.authentication.WorkerTokenAuthentication"
    name = "workerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token spw_…`: a worker's own token, returned once by `POST workers/register`.",
        }


class BootstrapTokenScheme(OpenApiAuthenticationExtension):
    target_class = "benchmarks_app.api.authentication.BootstrapTokenAuthentication"
    name = "bootstrapToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token spb_…`, from `manage.py createbootstraptoken`: registration only.",
        }
