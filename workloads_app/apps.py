from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    """Registered workloads: a lane's own traffic as immutable, content-addressed prompt
    sets and traces that contracts name (`workload:NAME@sha256:…`) and workers download.
    Sits below contracts_app in the layers: storing a contract version asks this app
    (`references`) whether the workloads it names exist and records their use; which
    versions and routes use a workload is read through those uses (`WorkloadUse`), never
    by importing contracts_app."""

    name = "workloads_app"
    default_auto_field = "django.db.models.BigAutoField"
