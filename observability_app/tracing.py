"""OpenTelemetry tracing of the control plane, behind SPECPACT_TRACING (off by default).

On, the web process (specpact/wsgi.py, specpact/asgi.py) traces each request (Django), the
SQL it runs (psycopg), its Redis calls (cache, broker publishes) and the Celery tasks it
sends; the control-plane Celery worker (specpact/celery.py, from `worker_process_init`)
traces each task it runs, with its SQL. The Celery instrumentation carries the trace
context in the task message's headers, so a request and the task it sent are one trace.
Off, this module imports nothing of OpenTelemetry, and neither does anything else.

What the SDK reads itself, as it documents (opentelemetry-python 1.45,
`opentelemetry/sdk/environment_variables/__init__.py`): OTEL_SERVICE_NAME and
OTEL_RESOURCE_ATTRIBUTES (the resource), OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG
(the sampler), OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION,
_CERTIFICATE (the OTLP exporter), OTEL_BSP_* (the batch processor). The settings read the
ones to check (specpact/settings.py, observability_app/checks.py).

The exporter is OTLP over HTTP/protobuf (port 4318): every OpenTelemetry Collector and
the tracing backends that take OTLP accept it, through any HTTP proxy, and it needs no
grpcio (a large native wheel) in the control plane's image.

The GPU worker (`worker/`) is not traced: it imports nothing of the control plane, and
its runs are dispatched through the outbox, in a later trace than the request that
asked for them (docs/observability.md).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span

log = logging.getLogger(__name__)

EXPORTERS = ("otlp", "console", "none")
PROTOCOL = "http/protobuf"
# The SDK's sampler names (opentelemetry/sdk/trace/sampling.py, `_KNOWN_SAMPLERS`).
SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
# Never traced, whatever the operator's list says: scrapes come every few seconds with a
# token, static files are not work, and the run specification's schema is the health check
# (docker-compose.yml's `web` healthcheck asks for it every 10 s).
ALWAYS_EXCLUDED_URLS = ("/metrics$", "/static/", "/api/v1/runs/spec-schema$")
# Header attributes (captured only when the operator names headers in
# OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST/_RESPONSE) whose values are
# replaced, whatever was asked: they carry tokens, sessions and CSRF secrets.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy_authorization", "cookie", "set_cookie", "x_csrftoken", "x_api_key"}
)
# The request attributes that hold the query string (old and new HTTP semantic
# conventions, opentelemetry-instrumentation-wsgi `collect_request_attributes`).
URL_ATTRIBUTES = ("http.url", "url.full", "http.target")
QUERY_ATTRIBUTE = "url.query"
REDACTED = "REDACTED"

_lock = threading.Lock()
_provider: TracerProvider | None = None


def configuration_problems() -> list[str]:
    """What is wrong with the tracing settings, in words (empty when off or fine)."""
    if not settings.SPECPACT_TRACING:
        return []
    problems = []
    unknown = [name for name in settings.TRACING_EXPORTERS if name not in EXPORTERS]
    if unknown:
        problems.append(f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not one of {', '.join(EXPORTERS)}")
    if settings.TRACING_OTLP_PROTOCOL != PROTOCOL:
        problems.append(
            f"OTEL_EXPORTER_OTLP_PROTOCOL: {settings.TRACING_OTLP_PROTOCOL!r} is not supported; "
            f"SpecPact exports {PROTOCOL} (the collector's port 4318)"
        )
    endpoint = settings.TRACING_OTLP_ENDPOINT
    if endpoint:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problems.append(
                f"OTEL_EXPORTER_OTLP_ENDPOINT: {endpoint!r} is not an http:// or https:// URL "
                "with a host (the OTLP/HTTP collector, e.g. http://otel-collector:4318)"
            )
    sampler = settings.TRACING_SAMPLER.lower()
    if sampler not in SAMPLERS:
        problems.append(f"OTEL_TRACES_SAMPLER: {sampler!r} is not one of {', '.join(SAMPLERS)}")
    elif sampler.endswith("traceidratio") and settings.TRACING_SAMPLER_ARG:
        try:
            ratio = float(settings.TRACING_SAMPLER_ARG)
        except ValueError:
            ratio = -1.0
        if not 0.0 <= ratio <= 1.0:
            problems.append(
                f"OTEL_TRACES_SAMPLER_ARG: {settings.TRACING_SAMPLER_ARG!r} is not a ratio from 0 to 1"
            )
    return problems


def start_web_tracing() -> bool:
    """Trace this web process, if tracing is on. Call it after `django.setup()` and before
    the WSGI/ASGI handler is built: the Django instrumentation adds its middleware to
    MIDDLEWARE, which the handler reads once."""
    return _start("specpact-web", web=True)


def start_worker_tracing() -> bool:
    """Trace this Celery worker process, if tracing is on: from `worker_process_init`,
    in the process that runs the tasks (a prefork child), since the batch processor's
    export thread does not survive a fork."""
    return _start("specpact-control-worker", web=False)


def _start(service: str, *, web: bool) -> bool:
    if not settings.SPECPACT_TRACING:
        return False
    problems = configuration_problems()
    if problems:
        raise ImproperlyConfigured("tracing: " + "; ".join(problems))
    global _provider
    with _lock:
        if _provider is not None:
            return True
        from opentelemetry import trace

        provider = tracer_provider(service, exporters())
        trace.set_tracer_provider(provider)
        instrument(provider, web=web)
        _provider = provider
    log.info("tracing on: %s, exporting to %s", service, ", ".join(settings.TRACING_EXPORTERS))
    return True


def exporters() -> list[tuple[SpanExporter, bool]]:
    """The configured exporters, each with whether it exports in batches (OTLP) or span
    by span (the console, read while debugging)."""
    chosen: list[tuple[SpanExporter, bool]] = []
    for name in dict.fromkeys(settings.TRACING_EXPORTERS):
        if name == "otlp":
            # Endpoint, headers, timeout, compression and certificates from OTEL_EXPORTER_OTLP_*.
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            chosen.append((OTLPSpanExporter(), True))
        elif name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            chosen.append((ConsoleSpanExporter(), False))
    return chosen


def tracer_provider(service: str, exporters: list[tuple[SpanExporter, bool]]) -> TracerProvider:
    """A provider whose resource and sampler come from the environment as the SDK reads
    them; `service` names it only when neither OTEL_SERVICE_NAME nor a `service.name` in
    OTEL_RESOURCE_ATTRIBUTES does (attributes given to `Resource.create` would win over
    both)."""
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: service}))
    provider = TracerProvider(resource=resource)  # sampler: OTEL_TRACES_SAMPLER(_ARG)
    for exporter, batched in exporters:
        provider.add_span_processor(
            BatchSpanProcessor(exporter) if batched else SimpleSpanProcessor(exporter)
        )
    return provider


def instrument(provider: TracerProvider, *, web: bool) -> None:
    """Turn the instrumentations on, for `provider`. The web process also traces Redis
    (the shared cache, publishing tasks); the worker does not, where redis-py is the
    broker connection that it polls all the time it waits for work."""
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

    from observability_app.celery_tracing import SpecPactCeleryInstrumentor

    if web:
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        excluded = ",".join([*ALWAYS_EXCLUDED_URLS, *settings.TRACING_EXCLUDED_URLS])
        DjangoInstrumentor().instrument(
            tracer_provider=provider,
            excluded_urls=excluded,
            request_hook=redact_request_span,
            response_hook=redact_response_span,
        )
        RedisInstrumentor().instrument(tracer_provider=provider)
    SpecPactCeleryInstrumentor().instrument(tracer_provider=provider)
    # Statements as sent (placeholders, never the parameters' values: the instrumentation's
    # default); no sqlcommenter, which would change every statement's text.
    PsycopgInstrumentor().instrument(tracer_provider=provider)


def uninstrument() -> None:
    """Undo `instrument` (the tests turn tracing on and off in one process)."""
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    from observability_app.celery_tracing import SpecPactCeleryInstrumentor

    for instrumentor in (
        DjangoInstrumentor(),
        RedisInstrumentor(),
        SpecPactCeleryInstrumentor(),
        PsycopgInstrumentor(),
    ):
        if instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.uninstrument()


def redact_request_span(span: Span, request: Any) -> None:
    """Django's request hook: no query-string value (an OIDC callback's `code`, a
    `token` someone put in a link) and no secret header is kept on the span."""
    _redact(span)


def redact_response_span(span: Span, request: Any, response: Any) -> None:
    """Django's response hook, after the response headers were captured."""
    _redact(span)


def _redact(span: Span) -> None:
    attributes = getattr(span, "attributes", None)
    if not attributes or not span.is_recording():
        return
    for key in URL_ATTRIBUTES:
        value = attributes.get(key)
        if isinstance(value, str) and "?" in value:
            span.set_attribute(key, redact_query(value))
    query = attributes.get(QUERY_ATTRIBUTE)
    if isinstance(query, str) and query:
        span.set_attribute(QUERY_ATTRIBUTE, _redacted_query(query))
    for key in list(attributes):
        prefix, _, header = key.rpartition(".")
        if prefix in ("http.request.header", "http.response.header") and header in SECRET_HEADERS:
            span.set_attribute(key, [REDACTED])


def redact_query(url: str) -> str:
    """`url` with each query parameter's value replaced (the names stay, to read)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query=_redacted_query(parts.query)))


def _redacted_query(query: str) -> str:
    # Split by hand, not parsed: a bare item (`?a1b2c3`) may itself be the secret, so only
    # a name before an `=` is kept.
    return "&".join(
        f"{item.partition('=')[0]}={REDACTED}" if "=" in item else REDACTED
        for item in query.split("&")
        if item
    )
