"""The release page's figures, built once per state of their inputs (issue 16: building
the 13 Plotly figures was ~92% of the page's 150-180 ms of CPU, on every view).

Every input is immutable or versioned: a run's result is written once (one row per run,
the database says so) and read only when the run succeeded, so (run id, attempt, state)
of the succeeded runs names the aggregates; the gate result and the release's other
fields change only with `lock_version`; the candidate version (memory headroom) never
changes. The key adds a digest of the chart code itself (dashboard_app/charts/ and the
selectors that feed it), so a deploy that changes a figure never serves an old one and
nobody has to remember to bump a number. The cache is settings.CACHES' `figures`
(FIGURE_CACHE_TIMEOUT_S): per process in memory unless CACHE_URL shares one in Redis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run
from releases_app.models import Release

_CHART_SOURCES = (
    Path(__file__).resolve().parents[1] / "charts",
    Path(__file__).resolve().with_name("evidence.py"),
)


@cache
def chart_code_version() -> str:
    """SHA-256 (16 hex digits) over the chart code's source files, read once per process."""
    digest = hashlib.sha256()
    for source in _CHART_SOURCES:
        for path in sorted(source.rglob("*.py")) if source.is_dir() else [source]:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def figures_key(release: Release, runs: list[Run]) -> str:
    succeeded = sorted((r.pk, r.attempt) for r in runs if r.state == RunState.SUCCEEDED)
    runs_part = ",".join(f"{pk}.{attempt}" for pk, attempt in succeeded)
    return f"release-figures:{chart_code_version()}:{release.pk}:{release.lock_version}:{runs_part}"


def cached_figure_groups(
    release: Release, runs: list[Run], build: Callable[[], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The page's figure groups from the cache, else `build()` stored under their key."""
    key = figures_key(release, runs)
    groups = caches["figures"].get(key)
    if groups is None:
        groups = build()
        caches["figures"].set(key, groups, timeout=settings.FIGURE_CACHE_TIMEOUT_S)
    return list(groups)
