"""An endpoint's auth header comes from a secret *reference*: `{"env": NAME}` (an
environment variable of the control plane whose name starts with
`ENDPOINT_SECRET_ENV_PREFIX`) or `{"file": PATH}` (a file under one of
`ENDPOINT_SECRET_DIRS`). Only the reference is stored; the secret is read when a probe is
sent and never returned. The prefix and the directories keep an operator from pointing a
reference at the control plane's own secrets (`SECRET_KEY`, `DATABASE_URL`, /etc/…) and
having them sent to an endpoint of their choosing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from django.conf import settings

from specpact.errors import DomainError, FieldError

_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
MAX_SECRET_BYTES = 4096


class SecretUnavailable(Exception):
    """The reference is valid but its secret cannot be read now (unset variable, missing file)."""


def _invalid(message: str) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=[FieldError("auth", message)])


def check_reference(ref: Any) -> dict[str, str] | None:
    """The reference as stored, or a 400 naming `auth` and why."""
    if ref is None:
        return None
    if not isinstance(ref, dict) or len(ref) != 1 or not ({"env", "file"} & set(ref)):
        raise _invalid('give {"env": "NAME"} or {"file": "/path"}: a reference to a secret, never the secret')
    kind, value = next(iter(ref.items()))
    if not isinstance(value, str):
        raise _invalid(f"{kind}: a string")
    if kind == "env":
        prefix = settings.ENDPOINT_SECRET_ENV_PREFIX
        if not _ENV_NAME.match(value) or not value.startswith(prefix):
            raise _invalid(f"env: an upper-case variable name starting with {prefix}")
        return {"env": value}
    path = Path(value)
    if not path.is_absolute() or ".." in path.parts:
        raise _invalid("file: an absolute path without '..'")
    dirs = [Path(d) for d in settings.ENDPOINT_SECRET_DIRS]
    if not any(path.is_relative_to(d) for d in dirs):
        shown = ", ".join(str(d) for d in dirs) or "none configured"
        raise _invalid(f"file: must be under one of ENDPOINT_SECRET_DIRS ({shown})")
    return {"file": value}


def shown_reference(ref: dict[str, str] | None) -> dict[str, str] | None:
    """What the API shows: the kind and the name, which are not secret."""
    return dict(ref) if ref else None


def resolve(ref: dict[str, str] | None) -> dict[str, str]:
    """The headers to send: `Authorization: Bearer <secret>` (vLLM's, SGLang's and
    llama-server's `--api-key` check that header), or none."""
    if not ref:
        return {}
    if "env" in ref:
        secret = os.environ.get(ref["env"])
        if not secret:
            raise SecretUnavailable(f"the environment variable {ref['env']} is not set on the control plane")
    else:
        try:
            with open(ref["file"], "rb") as fh:
                secret = fh.read(MAX_SECRET_BYTES + 1).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise SecretUnavailable(f"the secret file cannot be read ({type(exc).__name__})") from None
        if len(secret) > MAX_SECRET_BYTES or not secret:
            raise SecretUnavailable("the secret file is empty or longer than 4 KiB")
    if any(c in secret for c in "\r\n"):
        raise SecretUnavailable("the secret holds a line break")
    return {"Authorization": f"Bearer {secret}"}
