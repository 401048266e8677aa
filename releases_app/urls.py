from django.urls import path

from releases_app.views import endpoints, pages

urlpatterns = [
    path("releases/", pages.release_list, name="release-list"),
    path("releases/propose", pages.release_propose, name="release-propose"),
    # Two segments: `releases/<id>/<action>` below would take `…/benchmark`.
    path(
        "releases/<int:release_id>/endpoints/benchmark",
        endpoints.release_benchmark,
        name="release-benchmark-endpoints",
    ),
    path(
        "releases/<int:release_id>/endpoints/point-candidate",
        endpoints.release_point_candidate,
        name="release-point-candidate",
    ),
    path("releases/<int:release_id>/<str:action>", pages.release_action, name="release-action"),
]
