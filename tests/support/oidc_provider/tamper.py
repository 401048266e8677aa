from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.conf import settings


class TamperIdTokenMiddleware:
    """While the file `tamper` exists in the provider's state directory, the token
    endpoint's ID token goes out with its signature changed (header and claims intact):
    what a relying party sees from a man in the middle or a forged token."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        response = self.get_response(request)
        if request.path != "/o/token/" or not (settings.STATE / "tamper").exists():
            return response
        body = json.loads(response.content)
        header, claims, signature = body["id_token"].split(".")
        flipped = ("B" if signature[0] == "A" else "A") + signature[1:]
        body["id_token"] = f"{header}.{claims}.{flipped}"
        response.content = json.dumps(body).encode()
        response["Content-Length"] = str(len(response.content))
        return response
