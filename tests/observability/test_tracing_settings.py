"""Tracing's settings: off by default, when nothing of OpenTelemetry is imported by the web
or worker start-up nor by a request; on, the same start-up traces; a setting that can't
work stops `manage.py check` and the processes' start, naming the variable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from observability_app import tracing
from observability_app.checks import check_tracing
from tests.support import gunicorn
from tests.support.processes import ControlPlaneWorker, RedisServer

REPO = Path(__file__).resolve().parents[2]

# Starts the web process as gunicorn does (specpact/wsgi.py), the control-plane worker's
# child as Celery does (its `worker_init`, `worker_process_init` signals), serves one
# request through the WSGI application, and says what of OpenTelemetry got imported.
START_AND_SERVE = """
import json, sys
from wsgiref.util import setup_testing_defaults
from specpact.wsgi import application
from celery.signals import worker_init, worker_process_init
import specpact.celery
worker_init.send(sender=None)
worker_process_init.send(sender=None)
environ = {"PATH_INFO": "/login/", "REQUEST_METHOD": "GET"}
setup_testing_defaults(environ)
statuses = []
b"".join(application(environ, lambda status, headers, *_: statuses.append(status)))
from django.conf import settings
print(json.dumps({
    "status": statuses[0],
    "modules": sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"),
    "middleware": [m for m in settings.MIDDLEWARE if "opentelemetry" in m],
}))
"""


# The same for the ASGI application (specpact/asgi.py), one request driven by hand.
ASGI_START_AND_SERVE = """
import asyncio, json, sys
from specpact.asgi import application

async def serve():
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": "/login/", "raw_path": b"/login/",
             "query_string": b"next=/x&code=s3cret", "root_path": "",
             "headers": [(b"host", b"localhost")], "client": ("127.0.0.1", 1),
             "server": ("localhost", 80)}
    sent, inbox = [], [{"type": "http.request", "body": b"", "more_body": False}]
    async def receive():
        if inbox:
            return inbox.pop(0)
        await asyncio.Event().wait()  # the client stays connected
    async def send(message):
        sent.append(message)
    await application(scope, receive, send)
    return sent[0]["status"]

status = asyncio.run(serve())
from django.conf import settings
print(json.dumps({
    "status": str(status),
    "modules": sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"),
    "middleware": [m for m in settings.MIDDLEWARE if "opentelemetry" in m],
}))
"""


def _start_and_serve(script: str = START_AND_SERVE, **env: str) -> tuple[dict[str, Any], str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SPECPACT_TRACING"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={**clean, "DATABASE_URL": gunicorn.test_database_url(), "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    *printed, last = done.stdout.strip().splitlines()
    return json.loads(last), "\n".join(printed)


def test_off_by_default_nothing_of_opentelemetry_is_imported(db: None) -> None:
    seen, printed = _start_and_serve()
    assert seen["status"].startswith("200"), seen
    assert seen == {"status": seen["status"], "modules": [], "middleware": []}
    assert printed == ""


def test_on_the_same_start_up_traces_the_request(db: None) -> None:
    # The console exporter (span by span, to stdout): what the operator reads to debug.
    seen, printed = _start_and_serve(SPECPACT_TRACING="1", OTEL_TRACES_EXPORTER="console")
    assert seen["status"].startswith("200"), seen
    assert "opentelemetry.sdk.trace" in seen["modules"]
    assert seen["middleware"] == [
        "opentelemetry.instrumentation.django.middleware.otel_middleware._DjangoMiddleware"
    ]
    assert '"name": "GET login/"' in printed, printed
    assert '"service.name": "specpact-web"' in printed


def test_asgi_off_imports_nothing_and_on_traces_the_request(db: None) -> None:
    seen, printed = _start_and_serve(ASGI_START_AND_SERVE)
    assert seen == {"status": "200", "modules": [], "middleware": []}
    seen, printed = _start_and_serve(
        ASGI_START_AND_SERVE, SPECPACT_TRACING="1", OTEL_TRACES_EXPORTER="console"
    )
    assert seen["status"] == "200" and seen["middleware"], seen
    assert '"name": "GET login/"' in printed, printed
    assert '"http.url": "http://localhost/login/?next=REDACTED&code=REDACTED"' in printed
    assert "s3cret" not in printed


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        (
            "TRACING_OTLP_ENDPOINT",
            "ftp://collector:4318",
            "OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector:4318'",
        ),
        ("TRACING_OTLP_ENDPOINT", "collector:4318", "is not an http:// or https:// URL"),
        ("TRACING_OTLP_ENDPOINT", "http://", "with a host"),
        ("TRACING_OTLP_PROTOCOL", "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' is not supported"),
        ("TRACING_EXPORTERS", ["otlp", "jaeger"], "OTEL_TRACES_EXPORTER: jaeger is not one of"),
        ("TRACING_SAMPLER", "sometimes", "OTEL_TRACES_SAMPLER: 'sometimes' is not one of"),
        ("TRACING_SAMPLER_ARG", "1.5", "OTEL_TRACES_SAMPLER_ARG: '1.5' is not a ratio"),
        ("TRACING_SAMPLER_ARG", "half", "OTEL_TRACES_SAMPLER_ARG: 'half' is not a ratio"),
    ],
)
def test_a_setting_that_cannot_work_is_a_check_error(settings: Any, name: str, value: Any, says: str) -> None:
    settings.SPECPACT_TRACING = True
    settings.TRACING_SAMPLER = "parentbased_traceidratio"
    setattr(settings, name, value)
    (error,) = check_tracing()
    assert error.id == "observability.E001"
    assert says in error.msg, error.msg
    with pytest.raises(ImproperlyConfigured, match="tracing: .*" + says.split(":")[0]):
        tracing.start_web_tracing()


def test_good_settings_and_tracing_off_pass_the_check(settings: Any) -> None:
    settings.SPECPACT_TRACING = True
    settings.TRACING_OTLP_ENDPOINT = "https://otel-collector.internal:4318"
    settings.TRACING_EXPORTERS = ["otlp", "console"]
    settings.TRACING_SAMPLER, settings.TRACING_SAMPLER_ARG = "parentbased_traceidratio", "0.25"
    assert check_tracing() == []
    # Off, OTEL_* variables set for other software on the host are not ours to judge.
    settings.SPECPACT_TRACING = False
    settings.TRACING_OTLP_ENDPOINT = "ftp://elsewhere"
    assert check_tracing() == []


def test_manage_py_check_stops_on_a_bad_endpoint(db: None) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env={
            **os.environ,
            "DATABASE_URL": gunicorn.test_database_url(),
            "SPECPACT_TRACING": "1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "observability.E001" in done.stderr and "OTEL_EXPORTER_OTLP_ENDPOINT" in done.stderr, done.stderr


@pytest.mark.integration
def test_the_control_plane_worker_stops_on_a_bad_endpoint(
    db: None, redis_server: RedisServer, tmp_path: Path
) -> None:
    worker = ControlPlaneWorker(
        tmp_path / "control-plane",
        redis_server.url,
        env={"SPECPACT_TRACING": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "udp://collector:4318"},
        pool="prefork",
    )
    try:
        assert worker.proc.wait(90) != 0
    finally:
        worker.stop()
    log = worker.log.read_text()
    assert "tracing: OTEL_EXPORTER_OTLP_ENDPOINT: 'udp://collector:4318'" in log, log
    assert "ready." not in log


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("http://h/p/?code=abc&state=xyz", "http://h/p/?code=REDACTED&state=REDACTED"),
        ("http://h/p/?a1b2c3", "http://h/p/?REDACTED"),
        ("http://h/p/?x=&y", "http://h/p/?x=REDACTED&REDACTED"),
        ("/p/?token=t", "/p/?token=REDACTED"),
    ],
)
def test_query_values_are_redacted_names_kept(url: str, redacted: str) -> None:
    assert tracing.redact_query(url) == redacted
