from django.urls import path

from releases_app.api import views

urlpatterns = [
    path("releases/", views.ReleaseListApi.as_view(), name="api-releases"),
    path("releases/<int:release_id>/", views.ReleaseDetailApi.as_view(), name="api-release"),
    path("releases/<int:release_id>/approve", views.ReleaseApproveApi.as_view(), name="api-release-approve"),
    path("releases/<int:release_id>/reject", views.ReleaseRejectApi.as_view(), name="api-release-reject"),
    path("releases/<int:release_id>/cancel", views.ReleaseCancelApi.as_view(), name="api-release-cancel"),
    path(
        "releases/<int:release_id>/rollback", views.ReleaseRollbackApi.as_view(), name="api-release-rollback"
    ),
]
