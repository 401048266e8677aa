"""Reading a secret bound to a route: `{"env": NAME}` (an environment variable) or
`{"file": PATH}` (a file), and the hosts it may be sent to: the one reader both sides use.

An admin binds a secret to a route and the hosts it may go to (live_app's `SecretBinding`);
an endpoint or a run then names the binding, never the secret. A reader still keeps to its
own fences, or a reference could send away the reader's own secrets (its token,
`SECRET_KEY`, a cloud key, /etc/…): variables only when their names start with the reader's
prefix; files only under its directories (absolute, no `..`), opened without following a
link anywhere below the directory (a link could point at anything, and one planted there
later would be followed at the next read), at most 4 KiB, no line breaks (the secret goes
into an HTTP header). And a bound secret goes only to a URL whose host the binding names.
The control plane reads with its settings (live_app/secrets.py), the worker with its
environment (worker/harness/endpoint_auth.py). Pure Python: no Django.

Messages name the reference and the host, never the secret.
"""

from __future__ import annotations

import ipaddress
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

MAX_SECRET_BYTES = 4096
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class SecretUnavailable(Exception):
    """The secret can't be read here: outside the reader's fences, unset, unreadable, or
    not bound to the host it would be sent to."""


def env_name_allowed(name: str, *, env_prefix: str) -> bool:
    return bool(_ENV_NAME.match(name)) and name.startswith(env_prefix)


def path_allowed(path: Path, *, secret_dirs: Sequence[str | Path]) -> bool:
    if not path.is_absolute() or ".." in path.parts:
        return False
    return any(path.is_relative_to(Path(d)) and path != Path(d) for d in secret_dirs)


# Hosts a binding names: `host` (any port) or `host:port`; lower-case, IPv6 in brackets.


def _host_part(host: str) -> str:
    try:
        return f"[{ipaddress.IPv6Address(host).compressed}]"
    except ValueError:
        pass
    host = host.lower().rstrip(".")
    if not _HOST_NAME.match(host):
        raise ValueError(f"{host!r} is not a host name or address")
    return host


def normalise_host(value: str) -> str:
    """'API.example.com' → 'api.example.com'; '::1' or '[::1]' → '[::1]'; with a port:
    'h:8000', '[fd00::5]:8000'. ValueError for anything else (a URL, a path, a bad port)."""
    if not isinstance(value, str) or not value or value != value.strip() or "/" in value or "@" in value:
        raise ValueError("a host or host:port, e.g. vllm.internal:8000 (no scheme, path or user)")
    host, port = value, ""
    if value.startswith("["):
        inner, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"{value!r}: an IPv6 address is [addr] or [addr]:port")
        host, port = inner, rest[1:]
        if ":" not in host:
            raise ValueError(f"{value!r}: only IPv6 addresses go in brackets")
    elif value.count(":") == 1:
        host, port = value.split(":")
    if port and (not port.isdigit() or not 0 < int(port) < 65536):
        raise ValueError(f"{value!r}: a port is 1-65535")
    return _host_part(host) + (f":{int(port)}" if port else "")


def url_host(url: str) -> str:
    """The host as a binding names it, with the port when the URL gives one (what a
    migration or a form offers to bind: the narrowest that fits)."""
    parts = urlsplit(url)
    host = _host_part(parts.hostname or "")
    return f"{host}:{parts.port}" if parts.port is not None else host


def host_allowed(url: str, hosts: Iterable[str]) -> bool:
    """Whether a secret bound to `hosts` may go to `url`: its host is one of them, on any
    port for an entry without one, else on the entry's port (the URL's, or its scheme's)."""
    try:
        parts = urlsplit(url)
        host = _host_part(parts.hostname or "")
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return False
    for entry in hosts:
        try:
            bound = normalise_host(entry)
        except ValueError:
            continue
        if bound == host or bound == f"{host}:{port}":
            return True
    return False


def _open_inside(path: Path, secret_dirs: Sequence[str | Path]) -> int:
    """A descriptor for `path`, opened one component at a time below its secret directory
    without following a link (O_NOFOLLOW on each), so no link inside the directory, to
    anywhere, is ever followed, and a link swapped in between a check and the read isn't
    either. The directory itself is the installation's setting and may be a link."""
    base = next(Path(d) for d in secret_dirs if path.is_relative_to(Path(d)) and path != Path(d))
    parts = path.relative_to(base).parts
    real_base = os.path.realpath(base)
    if not os.path.realpath(path).startswith(real_base.rstrip("/") + "/"):
        raise OSError("the path leaves the secret directory")
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        # O_NONBLOCK: a FIFO planted there must not hang the reader; it is refused below.
        leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(leaf).st_mode):
        os.close(leaf)
        raise OSError("not a regular file")
    return leaf


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
            fd = _open_inside(Path(given), secret_dirs)
            with os.fdopen(fd, "rb") as fh:
                secret = fh.read(MAX_SECRET_BYTES + 1).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise SecretUnavailable(
                f"the secret file {given} can't be read ({type(exc).__name__}; links are not followed)"
            ) from None
        if not secret or len(secret) > MAX_SECRET_BYTES:
            raise SecretUnavailable(f"the secret file {given} is empty or longer than 4 KiB")
    else:
        raise SecretUnavailable('a secret reference is {"env": NAME} or {"file": PATH}')
    if any(c in secret for c in "\r\n"):
        raise SecretUnavailable("the secret holds a line break")
    return secret


def read_bound_secret(
    *,
    name: str,
    kind: str,
    reference: str,
    hosts: Sequence[str],
    urls: Iterable[str],
    env_prefix: str,
    secret_dirs: Sequence[str | Path],
    environ: Mapping[str, str],
    reader: str,
    dirs_setting: str,
) -> str:
    """The secret of binding `name`, for sending to every one of `urls`: refused unless
    each URL's host is one the binding names, then read within the reader's fences."""
    for url in urls:
        if url and not host_allowed(url, hosts):
            try:
                shown = url_host(url)
            except ValueError:
                shown = "an unparsable host"
            raise SecretUnavailable(
                f"the secret binding {name!r} is sent only to {', '.join(hosts) or 'no host'}, "
                f"not to {shown}: an admin adds the host to the binding, then re-binds"
            )
    if kind not in ("env", "file"):
        raise SecretUnavailable(f"the secret binding {name!r} has an unknown kind {kind!r}")
    return read_secret(
        {kind: reference},
        env_prefix=env_prefix,
        secret_dirs=secret_dirs,
        environ=environ,
        reader=reader,
        dirs_setting=dirs_setting,
    )
