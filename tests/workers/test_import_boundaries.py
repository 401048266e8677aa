"""The control plane never loads the worker's runtime (torch, the harness's engines), and
the worker never loads Django: each side imports only the shared pure-pydantic models."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

_CHECK = """
import sys
{setup}
for module in {imports}:
    __import__(module)
print(sorted(m for m in {forbidden} if m in sys.modules))
"""


def _loaded(imports: list[str], forbidden: list[str], setup: str = "") -> str:
    code = _CHECK.format(setup=setup, imports=imports, forbidden=forbidden)
    env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=settings.BASE_DIR)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_control_plane_does_not_import_torch_or_the_harness_runtime() -> None:
    setup = "import os, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'specpact.settings'; django.setup()"
    imports = ["benchmarks_app.services", "benchmarks_app.api.urls", "benchmarks_app.tasks",
               "benchmarks_app.services.sweep", "benchmarks_app.results_check", "specpact.urls"]  # fmt: skip
    forbidden = ["torch", "transformers", "aiohttp", "worker.harness.runner", "worker.agent", "psutil"]
    assert _loaded(imports, forbidden, setup) == "[]"


def test_the_worker_agent_does_not_import_django() -> None:
    imports = ["worker.run_cli", "worker.agent.celery_app", "worker.agent.task", "worker.agent.execute"]
    # (kombu imports django.utils.functional when Django is installed: not settings, not the ORM)
    forbidden = ["django.conf", "django.db", "benchmarks_app", "contracts_app", "rest_framework", "psycopg"]
    assert _loaded(imports, forbidden) == "[]"
