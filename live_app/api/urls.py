from django.urls import path

from live_app.api import bindings, views

urlpatterns = [
    path(
        "routes/<slug:slug>/secret-bindings/",
        bindings.SecretBindingListApi.as_view(),
        name="api-secret-bindings",
    ),
    path(
        "routes/<slug:slug>/secret-bindings/<str:name>/",
        bindings.SecretBindingDetailApi.as_view(),
        name="api-secret-binding",
    ),
    path(
        "routes/<slug:slug>/endpoints/benchmark",
        views.EndpointBenchmarkApi.as_view(),
        name="api-endpoints-run",
    ),
    path(
        "routes/<slug:slug>/endpoints/<str:name>/probe",
        views.EndpointProbeApi.as_view(),
        name="api-endpoint-probe",
    ),
    path(
        "routes/<slug:slug>/endpoints/<str:name>/probes/<int:request_id>",
        views.EndpointProbeRequestApi.as_view(),
        name="api-endpoint-probe-request",
    ),
]
