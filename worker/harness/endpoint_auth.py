"""The bearer token for a live endpoint, read on the worker.

A route's endpoint names its auth header as a *reference* to a secret (live_app/secrets.py
on the control plane): the run specification carries only that reference, so no secret
sits in the database, the broker or a run's spec. The worker resolves it in its own
environment, and only within the same fences the control plane keeps: variables named
`SPECPACT_ENDPOINT_…` and files under the directories in `SPECPACT_WORKER_SECRET_DIRS`
(`:`-separated; none by default). Otherwise a run spec could have the worker send its own
secrets (its token, a cloud key) to an address of the spec's choosing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV_PREFIX = "SPECPACT_ENDPOINT_"
DIRS_VARIABLE = "SPECPACT_WORKER_SECRET_DIRS"
MAX_SECRET_BYTES = 4096
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")


class EndpointAuthError(Exception):
    """The reference can't be resolved on this worker; the message says what to set."""


def _from_env(name: str) -> str:
    if not _ENV_NAME.match(name) or not name.startswith(ENV_PREFIX):
        raise EndpointAuthError(f"api_key_env {name!r}: this worker reads only variables named {ENV_PREFIX}…")
    secret = os.environ.get(name, "")
    if not secret:
        raise EndpointAuthError(f"the endpoint's token is not set on this worker: set {name}")
    return secret


def _from_file(given: str) -> str:
    path = Path(given)
    dirs = [Path(d) for d in os.environ.get(DIRS_VARIABLE, "").split(":") if d]
    if not path.is_absolute() or ".." in path.parts or not any(path.is_relative_to(d) for d in dirs):
        raise EndpointAuthError(
            f"api_key_file {given!r}: this worker reads secret files only under {DIRS_VARIABLE} "
            f"({':'.join(map(str, dirs)) or 'not set'})"
        )
    try:
        with open(path, "rb") as fh:
            secret = fh.read(MAX_SECRET_BYTES + 1).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise EndpointAuthError(
            f"the endpoint's token file {given} can't be read ({type(exc).__name__})"
        ) from None
    if not secret or len(secret) > MAX_SECRET_BYTES:
        raise EndpointAuthError(f"the endpoint's token file {given} is empty or longer than 4 KiB")
    return secret


def bearer_token(*, api_key: str | None, api_key_env: str | None, api_key_file: str | None) -> str | None:
    """The token to send as `Authorization: Bearer …`, or None for an open endpoint."""
    if api_key:  # given by hand (`specpact-worker bench --api-key`)
        return api_key
    if api_key_env:
        secret = _from_env(api_key_env)
    elif api_key_file:
        secret = _from_file(api_key_file)
    else:
        return None
    if any(c in secret for c in "\r\n"):
        raise EndpointAuthError("the endpoint's token holds a line break")
    return secret
