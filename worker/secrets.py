"""Reading a secret from a *reference*: `{"env": NAME}` (an environment variable) or
`{"file": PATH}` (a file), the one spelling both sides use.

A reference is chosen by whoever registers an endpoint or writes a run spec, and the
secret is then sent to an address of their choosing; so a reader keeps to its fences, or a
reference could send away the reader's own secrets (its token, `SECRET_KEY`, a cloud key,
/etc/…): variables only when their names start with the reader's prefix, files only under
its directories (absolute, no `..`), at most 4 KiB, no line breaks (the secret goes into an
HTTP header). The control plane reads with its settings (live_app/secrets.py), the worker
with its environment (worker/harness/endpoint_auth.py). Pure Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

MAX_SECRET_BYTES = 4096
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")


class SecretUnavailable(Exception):
    """The secret can't be read here: outside the reader's fences, unset, unreadable."""


def env_name_allowed(name: str, *, env_prefix: str) -> bool:
    return bool(_ENV_NAME.match(name)) and name.startswith(env_prefix)


def path_allowed(path: Path, *, secret_dirs: Sequence[str | Path]) -> bool:
    if not path.is_absolute() or ".." in path.parts:
        return False
    return any(path.is_relative_to(Path(d)) for d in secret_dirs)


def read_secret(
    ref: Mapping[str, str],
    *,
    env_prefix: str,
    secret_dirs: Sequence[str | Path],
    environ: Mapping[str, str],
    reader: str,
    dirs_setting: str,
) -> str:
    """The secret `ref` names, read within the fences. `reader` ("this worker", "the
    control plane") and `dirs_setting` (the setting naming `secret_dirs`) say in a refusal
    where it was read and what to change."""
    if "env" in ref:
        name = ref["env"]
        if not env_name_allowed(name, env_prefix=env_prefix):
            raise SecretUnavailable(f"env {name!r}: {reader} reads only variables named {env_prefix}…")
        secret = environ.get(name, "")
        if not secret:
            raise SecretUnavailable(f"the environment variable {name} is not set on {reader}: set {name}")
    elif "file" in ref:
        given = ref["file"]
        if not path_allowed(Path(given), secret_dirs=secret_dirs):
            shown = ":".join(map(str, secret_dirs)) or "not set"
            raise SecretUnavailable(
                f"file {given!r}: {reader} reads secret files only under {dirs_setting} ({shown})"
            )
        try:
            with open(given, "rb") as fh:
                secret = fh.read(MAX_SECRET_BYTES + 1).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise SecretUnavailable(f"the secret file {given} can't be read ({type(exc).__name__})") from None
        if not secret or len(secret) > MAX_SECRET_BYTES:
            raise SecretUnavailable(f"the secret file {given} is empty or longer than 4 KiB")
    else:
        raise SecretUnavailable('a secret reference is {"env": NAME} or {"file": PATH}')
    if any(c in secret for c in "\r\n"):
        raise SecretUnavailable("the secret holds a line break")
    return secret
