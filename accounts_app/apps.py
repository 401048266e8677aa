from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the token scheme with drf-spectacular (import side effect).
        from accounts_app import schema  # noqa: F401
