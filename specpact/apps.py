from django.apps import AppConfig


class SpecpactConfig(AppConfig):
    """The project shell as an app: it loads the control plane's Celery app with Django
    (so `shared_task`s bind to it) and holds project-wide commands (`manage.py demo`).
    Importing `specpact` alone stays light, so the offline CLI and the pure document core
    don't pull Celery or Django settings. Its label is `project`: the kernel (`kernel/`)
    keeps the `specpact` label of the tables it owns."""

    name = "specpact"
    label = "project"
    verbose_name = "SpecPact"

    def ready(self) -> None:
        from specpact import celery  # noqa: F401
