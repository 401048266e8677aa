from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live routes: a route's named endpoints (the deployment, a canary), probed for what the
    engine itself reports and held against the contract version they should serve, and an
    acceptance watch over their metrics. Sits below releases_app in the layers: releases_app
    benchmarks a release on endpoints and answers the watch's `acceptance_dropped` signal
    with a rollback proposal; live_app imports nothing of releases."""

    name = "live_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A standalone run's given endpoint may send only one of its route's secret
        # bindings: benchmarks_app, below this app, asks live_app through this lookup.
        from benchmarks_app.run_auth import register_binding_lookup
        from live_app.secrets import bindings_for_run

        register_binding_lookup(bindings_for_run)
