"""Tracing on, across real processes: a probe asked of a real gunicorn (specpact/wsgi.py
starts its tracing) is sent through a real Redis to the control plane's real Celery worker
(prefork, as docker-compose runs it; specpact/celery.py starts tracing in the child), and
both export OTLP/HTTP to a small real receiver. The request's server span, the publish span
inside it and the worker's task span are one trace, the task's span a child of the publish.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from live_app.models import Endpoint
from live_app.services.probe_requests import PROBE_REQUEST_TASK
from tests.support.factories import make_token
from tests.support.gunicorn import LOOPBACK_AND_PRIVATE, serve
from tests.support.otlp_receiver import ReceivedSpan, Receiver, otlp_receiver
from tests.support.processes import ControlPlaneWorker, RedisServer

pytestmark = pytest.mark.integration

# opentelemetry-proto `trace/v1/trace.proto`, Span.SpanKind.
SERVER, PRODUCER, CONSUMER = 2, 4, 5


def _tracing_env(receiver: Receiver) -> dict[str, str]:
    return {
        "SPECPACT_TRACING": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        # The batch processor's delay (opentelemetry-sdk `OTEL_BSP_SCHEDULE_DELAY`, ms),
        # short so the test does not wait the default 5 s for each export.
        "OTEL_BSP_SCHEDULE_DELAY": "200",
        "ENDPOINT_ALLOWED_NETWORKS": LOOPBACK_AND_PRIVATE,
    }


def _wait_for(receiver: Receiver, found: Any, what: str, timeout_s: float = 60) -> list[ReceivedSpan]:
    ends_at = time.monotonic() + timeout_s
    while time.monotonic() < ends_at:
        spans = found()
        if spans:
            return spans
        time.sleep(0.2)
    with receiver.lock:
        seen = [(s.service, s.name) for s in receiver.spans]
    raise AssertionError(f"no {what} reached the receiver; it has {seen}")


def test_a_request_and_the_task_it_sent_are_one_trace(
    transactional_db: None, route_v1: Any, operator: Any, redis_server: RedisServer, tmp_path: Path
) -> None:
    key = make_token(operator, "operator").key
    # Nothing listens on port 9: the probe ends at once.
    Endpoint.objects.create(
        route=route_v1, name="nine", base_url="http://127.0.0.1:9", engine="vllm", expects="active"
    )
    with otlp_receiver() as receiver:
        env = _tracing_env(receiver)
        worker = ControlPlaneWorker(tmp_path / "control-plane", redis_server.url, env=env, pool="prefork")
        try:
            with serve({**env, "CELERY_BROKER_URL": redis_server.url}, workers=1) as server:
                worker.wait_ready()
                with server.client(key) as client:
                    response = client.post("/api/v1/routes/contract-summaries/endpoints/nine/probe")
                # 200 when the worker's probe ended within the web's short wait, else 202:
                # the worker ran it either way.
                assert response.status_code in (200, 202), response.text

                task_name = f"run/{PROBE_REQUEST_TASK}"
                (task,) = _wait_for(receiver, lambda: receiver.named(task_name), "task span")
                (publish,) = _wait_for(
                    receiver, lambda: receiver.named(f"apply_async/{PROBE_REQUEST_TASK}"), "publish span"
                )
                servers = _wait_for(
                    receiver,
                    lambda: [s for s in receiver.in_trace(task.trace_id) if s.kind == SERVER],
                    "server span in the task's trace",
                )
        finally:
            worker.stop()

    (request,) = servers
    assert request.service == "specpact-web"
    assert request.name == "POST api/v1/routes/<slug:slug>/endpoints/<str:name>/probe"
    assert request.attributes["http.status_code"] == response.status_code
    # The web process: the publish span is the request's child, in its trace.
    assert publish.kind == PRODUCER and publish.service == "specpact-web"
    assert (publish.trace_id, publish.parent_span_id) == (request.trace_id, request.span_id)
    # The worker's prefork child: the task's span continues that trace from the headers.
    assert task.kind == CONSUMER and task.service == "specpact-control-worker"
    assert (task.trace_id, task.parent_span_id) == (request.trace_id, publish.span_id)
    # Its SQL is traced too, in the same trace (the claim of the probe request).
    sql = [
        s
        for s in receiver.in_trace(task.trace_id)
        if s.service == "specpact-control-worker" and s.attributes.get("db.system") == "postgresql"
    ]
    assert sql, [s.name for s in receiver.in_trace(task.trace_id)]
    # No token reached the collector, in any process's span.
    with receiver.lock:
        assert key not in repr([s.attributes for s in receiver.spans])
