from django.urls import path

from dashboard_app.views import advice, card, fleet, probes, releases, routes

urlpatterns = [
    path("", routes.routes_overview, name="routes-overview"),
    path("fleet/", fleet.fleet_page, name="fleet"),
    path("routes/<str:slug>/", routes.route_detail, name="route-detail"),
    path("routes/<str:slug>/card/", card.route_card, name="route-card"),
    path("routes/<str:slug>/endpoints/table", probes.route_endpoints_table, name="route-endpoints-table"),
    path("routes/<str:slug>/card.md", card.route_card_markdown, name="route-card-md"),
    path("routes/<str:slug>/advice/", advice.route_advice, name="route-advice"),
    path("advice/<int:advice_id>/", advice.advice_detail, name="advice-detail"),
    path("releases/<int:release_id>/", releases.release_detail, name="release-detail"),
    path("releases/<int:release_id>/evidence/progress", releases.release_progress, name="release-progress"),
]
