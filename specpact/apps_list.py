"""The project's own Django apps, named once: INSTALLED_APPS is built from this list, the
Makefile's mypy line prints it (`python specpact/apps_list.py`), and a test holds
import-linter's root_packages in pyproject.toml to it. Packaging and the images need no
list: pyproject finds `*_app` packages, the Dockerfiles copy the whole context.

Imports nothing, so it runs as a plain script before the virtualenv exists."""

PROJECT_APPS: tuple[str, ...] = (
    "kernel",
    "specpact",
    "accounts_app",
    "audit_app",
    "contracts_app",
    "workloads_app",
    "releases_app",
    "benchmarks_app",
    "live_app",
    "dashboard_app",
    "webhooks_app",
    "observability_app",
    "advice_app",
)

if __name__ == "__main__":
    print(" ".join(PROJECT_APPS))
