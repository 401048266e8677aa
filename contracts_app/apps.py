from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "contracts_app"
    default_auto_field = "django.db.models.BigAutoField"
