"""The bearer token for a live endpoint, read on the worker.

A route's endpoint names its auth as one of the route's *secret bindings* (live_app's
`SecretBinding`: where the secret lives and the hosts it may be sent to): the run
specification carries only that binding (`auth_binding`), so no secret sits in the
database, the broker or a run's spec. The worker resolves nothing else: a spec naming a
variable or a file on its own (`api_key_env`, `api_key_file`) is refused with the spec. It sends the
secret only to a base_url whose host the binding names, and reads it only within the
fences the control plane keeps (worker/secrets.py): variables named `SPECPACT_ENDPOINT_…`
and files under the directories in `SPECPACT_WORKER_SECRET_DIRS` (`:`-separated; none by
default). Otherwise a run spec could have the worker send its own secrets (its token, a
cloud key) to an address of the spec's choosing.
"""

from __future__ import annotations

import os

from worker.harness.plan import BoundSecret
from worker.secrets import SecretUnavailable, read_bound_secret

ENV_PREFIX = "SPECPACT_ENDPOINT_"
DIRS_VARIABLE = "SPECPACT_WORKER_SECRET_DIRS"

# The harness's name for a secret this worker won't send; the message says what to change.
EndpointAuthError = SecretUnavailable


def bearer_token(
    *, base_url: str, api_key: str | None = None, auth_binding: BoundSecret | None = None
) -> str | None:
    """The token to send to `base_url` as `Authorization: Bearer …`, or None for an open
    endpoint. (A spec naming `api_key_env`/`api_key_file` on their own never gets here: the
    plan refuses it, worker/harness/plan.py.)"""
    if api_key:  # a person's own key, given by hand (`specpact-worker bench --api-key`)
        return api_key
    if auth_binding is None:
        return None
    return read_bound_secret(
        name=f"{auth_binding.route}/{auth_binding.name}",
        kind=auth_binding.kind,
        reference=auth_binding.reference,
        hosts=auth_binding.hosts,
        urls=[base_url],
        env_prefix=ENV_PREFIX,
        secret_dirs=[d for d in os.environ.get(DIRS_VARIABLE, "").split(":") if d],
        environ=os.environ,
        reader="this worker",
        dirs_setting=DIRS_VARIABLE,
    )
