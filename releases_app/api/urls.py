from django.urls import path

from releases_app.api import endpoints, rollouts, views

urlpatterns = [
    path("releases/", views.ReleaseListApi.as_view(), name="api-releases"),
    path("releases/<int:release_id>/", views.ReleaseDetailApi.as_view(), name="api-release"),
    path("releases/<int:release_id>/approve", views.ReleaseApproveApi.as_view(), name="api-release-approve"),
    path("releases/<int:release_id>/reject", views.ReleaseRejectApi.as_view(), name="api-release-reject"),
    path("releases/<int:release_id>/cancel", views.ReleaseCancelApi.as_view(), name="api-release-cancel"),
    path(
        "releases/<int:release_id>/rollback", views.ReleaseRollbackApi.as_view(), name="api-release-rollback"
    ),
    path(
        "releases/<int:release_id>/benchmark",
        endpoints.ReleaseBenchmarkApi.as_view(),
        name="api-release-benchmark",
    ),
    # Progressive-delivery gates (releases_app/rollout_gate.py; docs/pipelines.md).
    path(
        "releases/<int:release_id>/analysis",
        rollouts.ReleaseAnalysisApi.as_view(),
        name="api-release-analysis",
    ),
    path("routes/<slug:slug>/analysis", rollouts.RouteAnalysisApi.as_view(), name="api-route-analysis"),
    path(
        "flagger/confirm-rollout",
        rollouts.FlaggerConfirmRolloutApi.as_view(),
        name="api-flagger-confirm-rollout",
    ),
    path(
        "flagger/confirm-promotion",
        rollouts.FlaggerConfirmPromotionApi.as_view(),
        name="api-flagger-confirm-promotion",
    ),
    path("flagger/rollback", rollouts.FlaggerRollbackApi.as_view(), name="api-flagger-rollback"),
    # An endpoint's writes may name a release (`expects: release:<id>`): served here.
    path("routes/<slug:slug>/endpoints/", endpoints.EndpointListApi.as_view(), name="api-endpoints"),
    path(
        "routes/<slug:slug>/endpoints/<str:name>/", endpoints.EndpointDetailApi.as_view(), name="api-endpoint"
    ),
]
