"""The bearer token for a live endpoint, read on the worker.

A route's endpoint names its auth header as a *reference* to a secret (live_app/secrets.py
on the control plane): the run specification carries only that reference, so no secret
sits in the database, the broker or a run's spec. The worker resolves it in its own
environment, and only within the same fences the control plane keeps (worker/secrets.py):
variables named `SPECPACT_ENDPOINT_…` and files under the directories in
`SPECPACT_WORKER_SECRET_DIRS` (`:`-separated; none by default). Otherwise a run spec could
have the worker send its own secrets (its token, a cloud key) to an address of the spec's
choosing.
"""

from __future__ import annotations

import os

from worker.secrets import SecretUnavailable, read_secret

ENV_PREFIX = "SPECPACT_ENDPOINT_"
DIRS_VARIABLE = "SPECPACT_WORKER_SECRET_DIRS"

# The harness's name for a reference this worker can't resolve; the message says what to set.
EndpointAuthError = SecretUnavailable


def bearer_token(*, api_key: str | None, api_key_env: str | None, api_key_file: str | None) -> str | None:
    """The token to send as `Authorization: Bearer …`, or None for an open endpoint."""
    if api_key:  # given by hand (`specpact-worker bench --api-key`)
        return api_key
    # The run spec's two fields (docs/run-spec.schema.json) are the reference's two kinds.
    if api_key_env:
        ref = {"env": api_key_env}
    elif api_key_file:
        ref = {"file": api_key_file}
    else:
        return None
    return read_secret(
        ref,
        env_prefix=ENV_PREFIX,
        secret_dirs=[d for d in os.environ.get(DIRS_VARIABLE, "").split(":") if d],
        environ=os.environ,
        reader="this worker",
        dirs_setting=DIRS_VARIABLE,
    )
