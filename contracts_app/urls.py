from django.urls import path

from benchmarks_app.views import evidence
from contracts_app.views import card, fleet, pages

urlpatterns = [
    path("", pages.routes_overview, name="routes-overview"),
    path("fleet/", fleet.fleet_page, name="fleet"),
    path("routes/<str:slug>/", pages.route_detail, name="route-detail"),
    path("routes/<str:slug>/card/", card.route_card, name="route-card"),
    path("routes/<str:slug>/card.md", card.route_card_markdown, name="route-card-md"),
    path("routes/<str:slug>/versions/<int:number>/", pages.version_detail, name="version-detail"),
    path("routes/<str:slug>/diff/", pages.diff_page, name="route-diff"),
    # The release page's benchmark progress (htmx); the release page itself is releases_app's.
    path("releases/<int:release_id>/evidence/progress", evidence.release_progress, name="release-progress"),
]
