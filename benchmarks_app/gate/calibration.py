"""What the calibration benchmark measured about this gate, for its method notes.

`benchmarks/gate_calibration.py` runs the gate on A/A pairs (a change that does nothing)
and on known effects, and writes the rates it measured to `calibration.json` beside this
file; the gate quotes them from there, so the release page and benchmarks/RESULTS.md
state the same figures and neither is typed by hand. A missing or unreadable table
means no note (the gate's verdicts never depend on it).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("calibration.json")


@lru_cache(maxsize=1)
def calibration_table() -> dict[str, Any] | None:
    try:
        data = json.loads(TABLE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("rules"), list) else None


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def calibration_note() -> str | None:
    table = calibration_table()
    if table is None:
        return None
    parts = []
    for row in table["rules"]:
        try:
            power = ", ".join(f"{_pct(p)} at {e:g}\u00d7" for e, p in row["power"])
            parts.append(
                f"{row['rule']}: false pass {_pct(row['false_pass'])} (nominal ≤ {_pct(row['nominal'])}), "
                f"false fail {_pct(row['false_fail'])}, power {power}"
            )
        except (KeyError, TypeError, ValueError):
            return None
    return (
        f"measured by benchmarks/gate_calibration.py ({table.get('measured', 'undated')}; "
        f"{table.get('setup', '')}): " + "; ".join(parts)
    )
