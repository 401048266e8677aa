"""An engine's /metrics page as a reader uses it: the speculation counters (names from the
engine table, `engines/<engine>.py` features of kind `metric`), the number of draft
positions, and a check that the page is that engine's at all."""

from __future__ import annotations

import math

from contracts_app.document.engines import KNOWLEDGE
from live_app.conformance.fetch import Fetched, Fetcher
from live_app.conformance.readers.reading import Counters, Reading
from worker.harness.acceptance.prometheus import Metrics, parse


def metric_names(engine: str) -> list[str]:
    return [f.name for f in KNOWLEDGE[engine].features if f.kind == "metric"]


def named(engine: str, fragment: str) -> str:
    return next(n for n in metric_names(engine) if fragment in n)


def total(metrics: Metrics, name: str, seen: Fetched | None = None) -> float | None:
    """`name` summed over its series, a counter written with or without `_total`; None when
    the server exposes no such metric. Recorded on `seen` (the read's evidence)."""
    bare = name.removesuffix("_total")
    found = [t for n in dict.fromkeys((name, bare, bare + "_total")) if (t := metrics.total(n)) is not None]
    value = math.fsum(found) if found else None
    return seen.saw(name, value) if seen is not None else value


def _label_values(metrics: Metrics, name: str, label: str) -> set[str]:
    names = dict.fromkeys((name, name.removesuffix("_total") + "_total"))
    return {value for n in names for value in metrics.by_label(n, label)}


def counters_from(engine: str, samples: Metrics, seen: Fetched) -> Counters | None:
    draft = total(samples, named(engine, "num_draft_tokens"), seen)
    accepted = total(samples, named(engine, "num_accepted_tokens_total"), seen)
    drafts = total(samples, named(engine, "num_drafts"), seen)
    if draft is None or accepted is None:
        return None
    return Counters(f"{engine} /metrics", draft, accepted, drafts)


def positions(engine: str, samples: Metrics, seen: Fetched) -> int | None:
    """How many draft positions the per-position counter has labels for (k), if any."""
    name = named(engine, "per_pos")
    values = _label_values(samples, name, "position")
    return seen.saw(f"{name}{{position}} count", len(values) if values else None)


def read_metrics(
    engine: str, reading: Reading, fetcher: Fetcher, base: str, metrics_url: str, path: str = "/metrics"
) -> tuple[Metrics, Fetched] | None:
    """The engine's metrics page (`metrics_url`, else `<base><path>`), kept as `metrics`."""
    if metrics_url and reading.metrics_refused:
        fetched = Fetched(url=metrics_url, failure=f"not read: metrics_url {reading.metrics_refused}")
    else:
        fetched = fetcher.get(metrics_url or base, "" if metrics_url else path, want_json=False)
    reading.keep("metrics", fetched)
    if not fetched.ok:
        return None
    samples = parse(fetched.text)
    # An engine's /metrics always carries its own metrics (the generation-token counter at
    # least); a page without any is not that engine's, and proves nothing about speculation.
    prefix = metric_names(engine)[0].split(":")[0].split("_")[0]
    if not any(name.startswith(prefix) for name in samples.samples):
        fetched.failure = f"no {prefix} metrics on the page"
        reading.failures.append(f"{fetched.url}: no {prefix} metrics on the page")
        return None
    return samples, fetched
