from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts_app"
    default_auto_field = "django.db.models.BigAutoField"
