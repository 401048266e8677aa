from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "observability_app"
    verbose_name = "Observability"
    default_auto_field = "django.db.models.BigAutoField"
