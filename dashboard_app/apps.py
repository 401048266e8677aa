from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The pages that read across domains: the routes overview, the fleet view, a route's
    page with its checklist and card, and a release's page with its evidence and charts.
    No models: it reads through the domain apps' selectors and models."""

    name = "dashboard_app"
