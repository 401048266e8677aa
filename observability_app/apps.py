from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "observability_app"
    verbose_name = "Observability"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from observability_app import checks  # noqa: F401  (registers the tracing check)
