"""Real processes the integration tests start and stop: a private redis-server and
`specpact-worker run` agents."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

from tests.support.launcher import REPO, reserved_port, wait_for


class RedisServer:
    """A private redis-server (no persistence): the tests stop and start it freely. Its
    port is reserved for the object's lifetime, so a restart gets the same one back."""

    def __init__(self, data_dir: Path | None = None) -> None:
        # `data_dir`: persistent as docker-compose runs it (append-only file, fsync every
        # second), so queued messages survive a restart; None: no persistence.
        self.data_dir = data_dir
        self._held = ExitStack()
        self.port = self._held.enter_context(reserved_port())
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *(
                    ("--appendonly", "yes", "--appendfsync", "everysec", "--dir", str(self.data_dir))
                    if self.data_dir is not None
                    else ("--appendonly", "no")
                ),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, 10, f"redis-server on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def close(self) -> None:
        """Stop it and give the port back."""
        self.stop()
        self._held.close()


class ProcessGroup:
    """A child started in its own process group (`start_new_session=True`), so a test can
    kill it with its pool children at once, like a machine that dies."""

    proc: subprocess.Popen[bytes]

    def kill_all(self) -> None:
        """kill -9 of the process and its children (mid-task if it is on one)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill_all()


class Agent(ProcessGroup):
    """A `specpact-worker run` process (its own process group, so the test can kill the
    agent with its Celery pool children at once, like a machine that dies)."""

    def __init__(self, home: Path, url: str, bootstrap: str, name: str) -> None:
        self.home, self.name = home, name
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "agent.log"
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        env.pop("DJANGO_SETTINGS_MODULE", None)  # the worker must not need Django
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "worker.run_cli",
                "run",
                "--url",
                url,
                "--bootstrap-token",
                bootstrap,
                "--name",
                name,
                "--home",
                str(home),
                "--loglevel",
                "INFO",
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=env,
            start_new_session=True,
        )

    def worker_id(self) -> int:
        path = self.home / "credentials.json"
        wait_for(path.exists, 60, f"{self.name} to register (log: {self.log})")
        return int(json.loads(path.read_text())["worker_id"])

    def wait_ready(self) -> None:
        wait_for(
            lambda: b"ready." in self.log.read_bytes() or self._died(), 90, f"{self.name}'s Celery worker"
        )
        assert not self._died(), self.log.read_text()

    def _died(self) -> bool:
        return self.proc.poll() is not None

    def children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]


def control_plane_env(broker_url: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a control-plane process (worker or beat) against the test's
    database and `broker_url`, plus `env`."""
    from django.db import connection

    db = connection.settings_dict  # the test database, which pytest-django named
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    database_url = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "specpact.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        **(env or {}),
    }


class ControlPlaneWorker(ProcessGroup):
    """The control plane's own Celery worker (`celery -A specpact.celery worker`) on its
    queue, as docker-compose runs it, against the test's database and broker. `env`: the
    settings it needs beyond those (it reads them from the environment, as in production).
    `pool`: Celery's solo pool, or prefork (one child) as docker-compose runs it."""

    def __init__(
        self, home: Path, broker_url: str, env: dict[str, str] | None = None, pool: str = "solo"
    ) -> None:
        from django.conf import settings

        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "control-plane.log"
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "specpact.celery", "worker"),
                *("--queues", settings.CONTROL_PLANE_QUEUE, "--pool", pool, "--loglevel", "INFO"),
                *(("--concurrency", "1") if pool == "prefork" else ()),
                *("--hostname", f"control@{home.name}", "--without-gossip", "--without-mingle"),
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=control_plane_env(broker_url, env),
            start_new_session=True,
        )

    def wait_ready(self) -> None:
        wait_for(
            lambda: b"ready." in self.log.read_bytes() or self.proc.poll() is not None, 90, "control plane"
        )
        assert self.proc.poll() is None, self.log.read_text()


class Beat(ProcessGroup):
    """`celery -A specpact.celery beat`, as docker-compose runs it: the schedule of
    specpact/settings.py (its intervals from `env`, as in production), sent through the
    broker to the control-plane workers."""

    def __init__(self, home: Path, broker_url: str, env: dict[str, str] | None = None) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "beat.log"
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "specpact.celery", "beat"),
                *("--schedule", str(home / "beat-schedule"), "--loglevel", "INFO"),
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=control_plane_env(broker_url, env),
            start_new_session=True,
        )


class Gunicorn(ProcessGroup):
    """The web process as the image runs it (`gunicorn specpact.wsgi:application`, sync
    workers) against the test's database and `broker_url`; `env`: settings from the
    environment, as in production. Its master respawns a worker that dies."""

    def __init__(
        self, home: Path, broker_url: str, env: dict[str, str] | None = None, workers: int = 2
    ) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "gunicorn.log"
        self._held = ExitStack()
        self.port = self._held.enter_context(reserved_port())
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "gunicorn", "specpact.wsgi:application"),
                *("--bind", f"127.0.0.1:{self.port}", "--workers", str(workers), "--timeout", "60"),
                # gunicorn 27's control socket defaults to one path in $HOME for every
                # server (`gunicorn --help`: --control-socket, --no-control-socket).
                "--no-control-socket",
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=control_plane_env(broker_url, env),
            start_new_session=True,
        )

    def wait_ready(self) -> None:
        wait_for(lambda: self._answers() or self.proc.poll() is not None, 90, "gunicorn")
        assert self.proc.poll() is None, self.log.read_text()

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"GET /login/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                return s.recv(16).startswith(b"HTTP/1")
        except OSError:
            return False

    def workers(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def busy_workers(self) -> list[int]:
        """The workers holding a client's connection: a sync worker holds one only while it
        handles that request (it closes it after the answer, no keep-alive)."""
        out = subprocess.run(
            ["ss", "-tnpH", "state", "established", f"( sport = :{self.port} )"],
            capture_output=True,
            text=True,
        ).stdout
        held = {int(pid) for pid in re.findall(r"pid=(\d+)", out)}
        return [pid for pid in self.workers() if pid in held]

    def stop(self) -> None:
        super().stop()
        self._held.close()
