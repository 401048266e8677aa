"""A script in `manage.py shell` against a new SQLite file, in a process of its own: the
demo's embedded default, for code paths that differ from the suite's PostgreSQL. The
script prints its findings as JSON on its last line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def sqlite_shell(tmp_path: Path, script: str) -> Any:
    """`script` run on `tmp_path/demo.sqlite3` (it migrates the file itself); its last
    line of output, read as JSON."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "specpact.settings",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
