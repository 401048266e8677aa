"""Tell the OpenAPI schema how API tokens are sent, so the docs page can use them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts_app.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <prefix>.<secret>`, issued by `manage.py createtoken` "
            "or `POST /api/v1/tokens/`.",
        }
