from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Import side effects: the token scheme registers with drf-spectacular, the
        # OIDC_ROLE_MAPPING system check with Django.
        from accounts_app import schema, sso  # noqa: F401
