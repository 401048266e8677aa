"""Tracing turned on inside the test process, exporting to the SDK's own in-memory test
exporter (opentelemetry-sdk `opentelemetry.sdk.trace.export.in_memory_span_exporter`),
span by span; the instrumentations are undone afterwards. The global tracer provider is
left alone (the SDK allows setting it once a process): the instrumentations are handed
this one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def traced(service: str = "specpact-web", *, web: bool = True) -> Iterator[Any]:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from observability_app import tracing

    exporter = InMemorySpanExporter()
    provider = tracing.tracer_provider(service, [(exporter, False)])
    tracing.instrument(provider, web=web)
    try:
        yield exporter
    finally:
        tracing.uninstrument()
        provider.shutdown()
