"""Reading `/metrics` back as Prometheus would: the text parsed by prometheus-client's own
parser into {(series name, labels): value}."""

from __future__ import annotations

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

Series = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape() -> Series:
    response = Client(REMOTE_ADDR="127.0.0.1").get("/metrics")
    assert response.status_code == 200, response.content
    out: Series = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(series: Series, name: str, **labels: str) -> float | None:
    return series.get((name, frozenset(labels.items())))
