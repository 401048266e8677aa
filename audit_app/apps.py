from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit_app"
    default_auto_field = "django.db.models.BigAutoField"
