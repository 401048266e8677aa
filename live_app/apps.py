from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live routes: a route's named endpoints (the deployment, a canary), probed for what the
    engine itself reports and held against the contract version they should serve, and an
    acceptance watch over their metrics. Sits above releases_app in the layers: the watch
    proposes rollback releases and an endpoint may expect an open release's candidate."""

    name = "live_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from live_app.services.release_runs import LiveReleaseEndpoints
        from releases_app.services.endpoints import release_endpoints_install

        release_endpoints_install(LiveReleaseEndpoints())
