from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

api_v1: list[URLPattern | URLResolver] = [
    path("", include("contracts_app.api.urls")),
    path("", include("workloads_app.api.urls")),
    path("", include("releases_app.api.urls")),
    path("", include("audit_app.api.urls")),
    path("", include("accounts_app.api.urls")),
    path("", include("benchmarks_app.api.urls")),
    path("", include("dashboard_app.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("admin/", admin.site.urls),
    path("", include("accounts_app.urls")),
    path("", include("audit_app.urls")),
    path("", include("releases_app.urls")),
    path("", include("benchmarks_app.urls")),
    path("", include("contracts_app.urls")),
    path("", include("workloads_app.urls")),
    path("", include("dashboard_app.urls")),
]
