from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks_app"
    verbose_name = "Webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webhooks_app import receivers  # noqa: F401  # connects the audit signals
