from django.urls import URLPattern, URLResolver, path

from benchmarks_app.views import pages

urlpatterns: list[URLPattern | URLResolver] = [
    path("workers/", pages.workers_page, name="workers"),
    path("workers/<int:worker_id>/revoke", pages.worker_revoke_page, name="worker-revoke"),
    path("runs/<int:run_id>/", pages.run_page, name="run-detail"),
    path("runs/<int:run_id>/cancel", pages.run_cancel_page, name="run-cancel"),
]
