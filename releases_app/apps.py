from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "releases_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from releases_app import evidence, receivers  # noqa: F401  (receivers: connects them)

        evidence.register()
