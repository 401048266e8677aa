from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    """Registered workloads: a lane's own traffic as immutable, content-addressed prompt
    sets and traces that contracts name (`workload:NAME@sha256:…`) and workers download.
    Sits above contracts_app in the layers: it reads which contract versions and routes
    use a workload (for who may see it, and for its page)."""

    name = "workloads_app"
    default_auto_field = "django.db.models.BigAutoField"
