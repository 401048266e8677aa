"""Server-built Plotly figures for the release page and the fleet view: pure Plotly, no
Django. Each builder takes stored aggregates (benchmarks_app.aggregates) and/or the gate's
`GateResult.as_dict()` and returns a JSON-ready figure dict; `figure_json` makes it safe to
embed in `<script type="application/json">`."""

from dashboard_app.charts.acceptance import acceptance_by_position
from dashboard_app.charts.checks import memory_by_level, output_stability
from dashboard_app.charts.distributions import latency_by_level, latency_distribution, ttft_by_level
from dashboard_app.charts.fleet import fleet_heatmap
from dashboard_app.charts.release import release_figures
from dashboard_app.charts.speculation import acceptance_by_level, tokens_per_chunk
from dashboard_app.charts.speedup import speedup_vs_load
from kernel.plotting import figure_json

__all__ = [
    "acceptance_by_level",
    "acceptance_by_position",
    "figure_json",
    "fleet_heatmap",
    "latency_by_level",
    "latency_distribution",
    "memory_by_level",
    "output_stability",
    "release_figures",
    "speedup_vs_load",
    "tokens_per_chunk",
    "ttft_by_level",
]
