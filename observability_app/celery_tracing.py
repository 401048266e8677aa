"""The Celery instrumentation, for tasks sent by name too (imported only with tracing on).

opentelemetry-instrumentation-celery 0.66b1 (`_trace_before_publish`) starts a producer
span for every published message and makes it the current span; `_trace_after_publish`
ends it, but only for a task registered in this process: for one sent by name
(`send_task`, as the control plane sends the GPU workers' tasks and the probe requests
through `benchmarks_app.broker.publisher_app`) it looks the task up, finds none, and
returns, leaving the span open and current, so everything after it in that thread became
its child. Here a task unknown to the registry is stood in for by one object per name,
which carries the span from one signal to the other as a registered task does.
"""

from __future__ import annotations

from typing import Any

from celery import registry
from opentelemetry.instrumentation.celery import CeleryInstrumentor


class _SentByName:
    """Stands for a task this process sends by name only: the instrumentation keeps the
    publish span on it (an attribute it sets) between the two publish signals."""

    def __init__(self, name: str) -> None:
        self.name = name


_stand_ins: dict[str, _SentByName] = {}


def _with_known_sender(kwargs: dict[str, Any]) -> dict[str, Any]:
    sender = kwargs.get("sender")
    if isinstance(sender, str) and registry.tasks.get(sender) is None:
        return {**kwargs, "sender": _stand_ins.setdefault(sender, _SentByName(sender))}
    return kwargs


class SpecPactCeleryInstrumentor(CeleryInstrumentor):
    def _trace_before_publish(self, *args: Any, **kwargs: Any) -> None:
        super()._trace_before_publish(*args, **_with_known_sender(kwargs))

    def _trace_after_publish(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super()._trace_after_publish(*args, **_with_known_sender(kwargs))
