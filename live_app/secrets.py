"""An endpoint's auth header comes from a secret *reference*: `{"env": NAME}` (an
environment variable of the control plane whose name starts with
`ENDPOINT_SECRET_ENV_PREFIX`) or `{"file": PATH}` (a file under one of
`ENDPOINT_SECRET_DIRS`). Only the reference is stored; the secret is read when a probe is
sent and never returned. The prefix and the directories keep an operator from pointing a
reference at the control plane's own secrets (`SECRET_KEY`, `DATABASE_URL`, /etc/…) and
having them sent to an endpoint of their choosing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings

from kernel.errors import DomainError, FieldError
from worker.secrets import SecretUnavailable, env_name_allowed, path_allowed, read_secret

# probes.py catches it by this name: the reference was stored, but its secret can't be read now.
__all__ = ["SecretUnavailable", "check_reference", "resolve", "shown_reference"]


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
        if not env_name_allowed(value, env_prefix=prefix):
            raise _invalid(f"env: an upper-case variable name starting with {prefix}")
        return {"env": value}
    path = Path(value)
    if not path.is_absolute() or ".." in path.parts:
        raise _invalid("file: an absolute path without '..'")
    dirs = settings.ENDPOINT_SECRET_DIRS
    if not path_allowed(path, secret_dirs=dirs):
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
    secret = read_secret(
        ref,
        env_prefix=settings.ENDPOINT_SECRET_ENV_PREFIX,
        secret_dirs=settings.ENDPOINT_SECRET_DIRS,
        environ=os.environ,
        reader="the control plane",
        dirs_setting="ENDPOINT_SECRET_DIRS",
    )
    return {"Authorization": f"Bearer {secret}"}
