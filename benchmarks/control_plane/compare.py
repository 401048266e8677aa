"""Today's scale beside x10 (issue 26, point 2: every ratio of point 1 within 1.5x of its
value at today's scale): from two JSON reports of `benchmarks/control_plane/run.py`.

    .venv/bin/python -m benchmarks.control_plane.compare \\
        benchmarks/out/control_plane.json benchmarks/out/control_plane_x10.json

Per endpoint: the gunicorn workers' CPU per request at 16 clients (the cell point 1
reports; another level where 16 was not measured), that CPU over the floor's (the request
to a view that does nothing, when the report has one: an endpoint named `…floor…`, the
page floor for pages and the API floor for the API), the load average beside each, p95 at
16 clients, and the x10 ratio over today's: at most `LIMIT`. Without a floor in both
reports, the last column compares CPU per request itself and says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

LIMIT = 1.5
CLIENTS = 16


def _cells(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """endpoint → its 16-client cell (else its highest measured level)."""
    measured: dict[str, list[dict[str, Any]]] = {}
    for cell in report.get("cells", []):
        if not cell.get("skipped") and cell.get("server_cpu_ms_per_request") is not None:
            measured.setdefault(cell["endpoint"], []).append(cell)
    return {
        name: next((c for c in cells if c["clients"] == CLIENTS), max(cells, key=lambda c: c["clients"]))
        for name, cells in measured.items()
    }


def _floor(cells: dict[str, dict[str, Any]], endpoint: str) -> float | None:
    kind = "page" if endpoint.startswith("page") else "api"
    for name, cell in cells.items():
        if "floor" in name and name.startswith(kind):
            return float(cell["server_cpu_ms_per_request"])
    return None


def rows(today: dict[str, Any], x10: dict[str, Any]) -> list[dict[str, Any]]:
    a, b = _cells(today), _cells(x10)
    out = []
    for name in [n for n in a if n in b and "floor" not in n]:
        fa, fb = _floor(a, name), _floor(b, name)
        ca, cb = float(a[name]["server_cpu_ms_per_request"]), float(b[name]["server_cpu_ms_per_request"])
        ra = ca / fa if fa else None
        rb = cb / fb if fb else None
        growth = rb / ra if ra and rb else cb / ca if ca else None
        out.append(
            {
                "endpoint": name,
                "today_cpu_ms": ca,
                "today_over_floor": ra,
                "today_load": a[name]["load_average_1m"],
                "today_p95_ms": a[name]["p95_ms"],
                "x10_cpu_ms": cb,
                "x10_over_floor": rb,
                "x10_load": b[name]["load_average_1m"],
                "x10_p95_ms": b[name]["p95_ms"],
                "growth": growth,
                "of": "ratio to the floor" if ra and rb else "CPU per request (no floor measured)",
                "met": growth is not None and growth <= LIMIT,
            }
        )
    return out


def table(found: list[dict[str, Any]], names: tuple[str, str] = ("today", "x10")) -> str:
    """`names`: the two reports' scales, as the columns call them (the keys stay today/x10)."""

    def f(v: Any, spec: str = ",.1f") -> str:
        return "-" if v is None else format(v, spec)

    a, b = names
    lines = [
        f"{'endpoint':<28}{a + ' ms':>10}{'xfloor':>8}{'load':>6}{'p95':>8}"
        f"{b + ' ms':>10}{'xfloor':>8}{'load':>6}{'p95':>8}{b + '/' + a:>11}  target <= {LIMIT}"
    ]
    for r in found:
        lines.append(
            f"{r['endpoint']:<28}{f(r['today_cpu_ms']):>10}{f(r['today_over_floor'], '.2f'):>8}"
            f"{f(r['today_load']):>6}{f(r['today_p95_ms']):>8}{f(r['x10_cpu_ms']):>10}"
            f"{f(r['x10_over_floor'], '.2f'):>8}{f(r['x10_load']):>6}{f(r['x10_p95_ms']):>8}"
            f"{f(r['growth'], '.2f'):>11}  {'met' if r['met'] else 'MISSED'} ({r['of']})"
        )
    return "\n".join(lines)


def print_comparison(today_path: Path, x10_path: Path) -> bool:
    """Prints the table when both reports exist; whether it did."""
    if not (today_path.exists() and x10_path.exists()):
        return False
    today, x10 = json.loads(today_path.read_text()), json.loads(x10_path.read_text())
    # Any two scales compare the same way (e.g. small beside full: 50 times the data).
    names = (str(today.get("scale") or "today"), str(x10.get("scale") or "x10"))
    print(f"\n{names[0]} scale ({today_path.name}) beside {names[1]} ({x10_path.name}), {CLIENTS} clients:")
    print(table(rows(today, x10), names))
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("today", type=Path)
    parser.add_argument("x10", type=Path)
    args = parser.parse_args(argv)
    if not print_comparison(args.today, args.x10):
        print("both reports are needed: run benchmarks/control_plane/run.py at each scale", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
