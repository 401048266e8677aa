from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from kernel.floor import ApiFloor, page_floor

api_v1: list[URLPattern | URLResolver] = [
    path("", include("contracts_app.api.urls")),
    path("", include("workloads_app.api.urls")),
    path("", include("releases_app.api.urls")),
    path("", include("audit_app.api.urls")),
    path("", include("accounts_app.api.urls")),
    path("", include("benchmarks_app.api.urls")),
    path("", include("live_app.api.urls")),
    path("", include("dashboard_app.api.urls")),
    path("", include("webhooks_app.api.urls")),
    # The benchmark's floor: 404 unless SPECPACT_BENCH_FLOOR is on (kernel/floor.py).
    path("bench/floor", ApiFloor.as_view(), name="api-bench-floor"),
    path("", include("advice_app.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file (`?script=`), not inline: the
    # page needs no 'unsafe-inline' script source under the Content-Security-Policy.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("admin/", admin.site.urls),
    path("bench/floor/", page_floor, name="bench-floor"),
    path("", include("accounts_app.urls")),
    path("", include("audit_app.urls")),
    path("", include("releases_app.urls")),
    path("", include("advice_app.urls")),
    path("", include("live_app.urls")),
    path("", include("benchmarks_app.urls")),
    path("", include("contracts_app.urls")),
    path("", include("workloads_app.urls")),
    path("", include("dashboard_app.urls")),
    path("", include("webhooks_app.urls")),
    path("", include("observability_app.urls")),
]

# Problem+json under /api/, the site's error pages elsewhere (kernel/error_views.py).
handler400 = "kernel.error_views.bad_request"
handler403 = "kernel.error_views.permission_denied"
handler404 = "kernel.error_views.page_not_found"
handler500 = "kernel.error_views.server_error"
