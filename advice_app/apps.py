from django.apps import AppConfig


class AdviceConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "advice_app"
    verbose_name = "Advice"

    def ready(self) -> None:
        from advice_app import receivers  # noqa: F401  (connects them)
