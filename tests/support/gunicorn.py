"""The control plane as production serves it, for tests: a real gunicorn (sync workers,
DEBUG off, a proxy's `X-Forwarded-Proto: https`) on loopback, against this test run's own
PostgreSQL database, so what an attacker's request does is what a deployment would do.

The launcher is the control-plane benchmark's (`benchmarks/control_plane/server.py`); this
module adds the test database's URL and the suite's loopback engines. A test that uses it
writes through `transactional_db` (gunicorn's workers see only committed rows):

    pytestmark = pytest.mark.integration

    def test_x(transactional_db, gunicorn_server, admin_token):
        response = gunicorn_server.client(admin_token).get("/api/v1/routes/")

`gunicorn_server` is module-scoped: one server for a module's tests. A test that needs other
settings starts its own with `serve({"SETTING": "value"})`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from benchmarks.control_plane.server import PROXY_HEADERS, Server, environment, gunicorn, manage

# The suite's engines are fakes on loopback (tests/conftest.py allows the same networks).
LOOPBACK_AND_PRIVATE = "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
# No broker answers here: a dispatch fails fast instead of waiting on one.
NO_BROKER = "redis://127.0.0.1:9/0"


def test_database_url() -> str:
    """This run's test database (pytest-django's name for it, xdist suffix and all)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


@dataclass
class LiveServer:
    server: Server

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def client(self, token: str | None = None, **headers: str) -> httpx.Client:
        """An HTTP client as a proxy forwards it (HTTPS ended in front), with `Token <token>`."""
        sent = {**PROXY_HEADERS, **headers}
        if token:
            sent["Authorization"] = f"Token {token}"
        return httpx.Client(base_url=self.base_url, headers=sent, timeout=60)


_collected: dict[str, Path] = {}


def _static_root(env: dict[str, str]) -> Path:
    """WhiteNoise's manifest, collected once per test process (pages 500 without it)."""
    if "root" not in _collected:
        root = Path(tempfile.mkdtemp(prefix="specpact-static-"))
        manage({**env, "SPECPACT_VAR_DIR": str(root)}, "collectstatic", "--noinput", "-v", "0")
        _collected["root"] = root / "staticfiles"
    return _collected["root"]


@contextmanager
def serve(
    extra: dict[str, str] | None = None, *, workers: int = 2, timeout_s: int = 30
) -> Iterator[LiveServer]:
    with tempfile.TemporaryDirectory(prefix="specpact-gunicorn-") as var_dir:
        secrets_dir = Path(var_dir) / "secrets"
        secrets_dir.mkdir()
        env = environment(
            test_database_url(),
            Path(var_dir),
            {
                "ENDPOINT_ALLOWED_NETWORKS": LOOPBACK_AND_PRIVATE,
                "CELERY_BROKER_URL": NO_BROKER,
                "ENDPOINT_SECRET_DIRS": str(secrets_dir),
                **(extra or {}),
            },
        )
        (Path(var_dir) / "staticfiles").symlink_to(_static_root(env))
        # A loaded CI machine can take a while to import Django in two workers.
        with gunicorn(env, workers=workers, timeout_s=timeout_s, ready_s=240) as server:
            yield LiveServer(server)


@pytest.fixture(scope="module")
def gunicorn_server(django_db_setup: None, django_db_blocker: object) -> Iterator[LiveServer]:
    with serve() as live:
        yield live
