from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    """Registered workloads: a lane's own traffic as immutable, content-addressed prompt
    sets and traces that contracts name (`workload:NAME@sha256:…`) and workers download.
    Sits above contracts_app in the layers: it reads which contract versions and routes
    use a workload (for who may see it, and for its page)."""

    name = "workloads_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # contracts_app checks the workloads a contract names through this (it can't
        # import this app: the layers go the other way).
        from contracts_app.services.datasets import dataset_resolver_install
        from workloads_app import references

        dataset_resolver_install(references)
