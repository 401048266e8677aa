from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live routes: a route's named endpoints (the deployment, a canary), probed for what the
    engine itself reports and held against the contract version they should serve, and an
    acceptance watch over their metrics. Sits below releases_app in the layers: releases_app
    benchmarks a release on endpoints and answers the watch's `acceptance_dropped` signal
    with a rollback proposal; live_app imports nothing of releases."""

    name = "live_app"
    default_auto_field = "django.db.models.BigAutoField"
