"""Start-up checks of the kernel's own settings."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security, deploy=True)
def check_bench_floor(**_: Any) -> list[checks.CheckMessage]:
    """The benchmark floor (kernel/floor.py) is a measuring aid: a deployment that serves it
    has been started with a benchmark's environment by mistake."""
    if not settings.SPECPACT_BENCH_FLOOR:
        return []
    return [
        checks.Warning(
            "SPECPACT_BENCH_FLOOR is on: /bench/floor/ and /api/v1/bench/floor answer.",
            hint="It is for benchmarks/control_plane/run.py only; unset it in production.",
            id="specpact.W001",
        )
    ]
