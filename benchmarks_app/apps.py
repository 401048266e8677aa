from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "benchmarks_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from benchmarks_app.api import schema  # noqa: F401  (registers the token schemes)
