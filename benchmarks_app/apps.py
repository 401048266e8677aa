from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "benchmarks_app"
    default_auto_field = "django.db.models.BigAutoField"
