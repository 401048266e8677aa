from django.urls import path

from live_app.api import views

urlpatterns = [
    path(
        "releases/<int:release_id>/benchmark",
        views.ReleaseBenchmarkApi.as_view(),
        name="api-release-benchmark",
    ),
    path("routes/<slug:slug>/endpoints/", views.EndpointListApi.as_view(), name="api-endpoints"),
    path(
        "routes/<slug:slug>/endpoints/benchmark",
        views.EndpointBenchmarkApi.as_view(),
        name="api-endpoints-run",
    ),
    path("routes/<slug:slug>/endpoints/<str:name>/", views.EndpointDetailApi.as_view(), name="api-endpoint"),
    path(
        "routes/<slug:slug>/endpoints/<str:name>/probe",
        views.EndpointProbeApi.as_view(),
        name="api-endpoint-probe",
    ),
]
