"""The control plane as production runs it, on loopback: gunicorn with sync workers,
DEBUG off, a generated SECRET_KEY, static files collected for WhiteNoise's manifest, TLS
ended by a proxy in front (requests carry `X-Forwarded-Proto: https`, as
`SECURE_PROXY_SSL_HEADER` expects; `SECURE_SSL_REDIRECT=0` as in docker-compose.yml).
A user and an admin token for the benchmark come from the app's own commands."""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}


def environment(database_url: str, var_dir: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE",)}
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        # testserver: the probe's Django test client (same settings otherwise).
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=database_url,
        SPECPACT_VAR_DIR=str(var_dir),
        LOG_LEVEL="WARNING",
        # The load driver measures capacity: the per-token throttle would cap it instead.
        API_THROTTLE_TOKEN_RATE="off",  # noqa: S106  # a rate, not a password
        API_THROTTLE_ANON_RATE="off",
        API_THROTTLE_WORKER_RATE="off",
        # The floor every endpoint is measured against (kernel/floor.py).
        SPECPACT_BENCH_FLOOR="1",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, extra_env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**env, **(extra_env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


@dataclass(frozen=True)
class Access:
    username: str
    password: str
    token: str


def create_access(env: dict[str, str]) -> Access:
    """A superuser to log in with (pages) and an admin API token (`manage.py createtoken`)."""
    username = f"bench-{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(24)
    manage(
        env,
        "createsuperuser",
        "--noinput",
        "--username",
        username,
        "--email",
        f"{username}@example.internal",
        extra_env={"DJANGO_SUPERUSER_PASSWORD": password},
    )
    token = manage(env, "createtoken", username, "--role", "admin", "--name", "control-plane benchmark")
    return Access(username, password, token.splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    base_url: str
    process: subprocess.Popen[bytes]


@contextmanager
def gunicorn(
    env: dict[str, str], *, workers: int, timeout_s: int = 120, ready_s: float = 60
) -> Iterator[Server]:
    port = free_port()
    # Sync workers, as the issue measured: one request per worker at a time, no keep-alive.
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "specpact.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--worker-class",
        "sync",
        "--timeout",
        str(timeout_s),
        "--graceful-timeout",
        "5",
        "--log-level",
        "warning",
        # gunicorn 27's control socket is one path in $HOME for every server (`gunicorn
        # --help`: --control-socket, --no-control-socket): two at once (scale_out.py, the
        # multihost tests) would share it.
        "--no-control-socket",
    ]
    # Its log goes to a file, not a pipe: nobody reads a pipe while the server runs, and once
    # its 64 KiB buffer is full of 4xx warnings every worker blocks writing the next one.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(base, process, log, ready_s)
            yield Server(base, process)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _wait_ready(base: str, process: subprocess.Popen[bytes], log: IO[bytes], limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            err = log.read().decode(errors="replace")
            raise RuntimeError(f"gunicorn exited with {process.returncode}: {err[-2000:]}")
        try:
            if httpx.get(base + "/login/", headers=PROXY_HEADERS, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"gunicorn did not answer on {base} within {limit_s} s")


def login(base: str, access: Access) -> str:
    """The session cookie of a browser login through the login form (CSRF and all). The
    cookie is Secure (DEBUG off), so it is carried by hand over the plain-HTTP loopback."""
    origin = base.replace("http://", "https://")
    with httpx.Client(base_url=base, headers=PROXY_HEADERS, timeout=30) as client:
        form = client.get("/login/")
        csrf = form.cookies.get("csrftoken")
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
        if not csrf or not match:
            raise RuntimeError("the login page gave no CSRF token")
        done = client.post(
            "/login/",
            data={
                "username": access.username,
                "password": access.password,
                "csrfmiddlewaretoken": match.group(1),
            },
            headers={"Origin": origin, "Referer": f"{origin}/login/", "Cookie": f"csrftoken={csrf}"},
        )
        session = done.cookies.get("sessionid")
        if done.status_code != 302 or not session:
            raise RuntimeError(f"login failed: HTTP {done.status_code}")
        return f"sessionid={session}"


def server_cpu_s(server: Server) -> float | None:
    """CPU seconds of gunicorn's master and workers so far (None without psutil)."""
    try:
        import psutil
    except ImportError:
        return None
    try:
        master = psutil.Process(server.process.pid)
        procs = [master, *master.children(recursive=True)]
        total = 0.0
        for p in procs:
            t: Any = p.cpu_times()
            total += t.user + t.system
        return total
    except psutil.Error:
        return None


def wait_idle(server: Server, database_url: str, limit_s: float = 180) -> float:
    """Wait until the server is idle again: a request abandoned by a timed-out client still
    runs to its end in its sync worker (in Python or in PostgreSQL). Idle = no query of
    another session active in the database and (with psutil) the workers' CPU still, twice
    in a row a quarter of a second apart. Returns the seconds waited."""
    import psycopg

    start = time.perf_counter()
    calm = 0
    last = server_cpu_s(server)
    with psycopg.connect(database_url, autocommit=True) as conn:
        while calm < 2 and time.perf_counter() - start < limit_s:
            time.sleep(0.25)
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND state = 'active' AND pid <> pg_backend_pid()"
            ).fetchone()
            now = server_cpu_s(server)
            busy_cpu = last is not None and now is not None and now - last > 0.02
            last = now
            calm = calm + 1 if (row and row[0] == 0 and not busy_cpu) else 0
    return time.perf_counter() - start
