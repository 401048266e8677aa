from django.urls import URLPattern, URLResolver, path

from benchmarks_app.api import runs, workers

urlpatterns: list[URLPattern | URLResolver] = [
    path("workers/", workers.WorkerListView.as_view(), name="api-workers"),
    path("workers/register", workers.RegisterView.as_view(), name="api-worker-register"),
    path("workers/heartbeat", workers.HeartbeatView.as_view(), name="api-worker-heartbeat"),
    path("workers/<int:worker_id>/", workers.WorkerDetailView.as_view(), name="api-worker"),
    path("workers/<int:worker_id>/revoke", workers.WorkerRevokeView.as_view(), name="api-worker-revoke"),
    path("runs/", runs.RunListView.as_view(), name="api-runs"),
    path("runs/spec-schema", runs.SpecSchemaView.as_view(), name="api-run-spec-schema"),
    path("runs/<int:run_id>/", runs.RunDetailView.as_view(), name="api-run"),
    path("runs/<int:run_id>/cancel", runs.RunCancelView.as_view(), name="api-run-cancel"),
    path("runs/<int:run_id>/start", runs.RunStartView.as_view(), name="api-run-start"),
    path("runs/<int:run_id>/progress", runs.RunProgressView.as_view(), name="api-run-progress"),
    path("runs/<int:run_id>/fail", runs.RunFailView.as_view(), name="api-run-fail"),
    path("runs/<int:run_id>/result", runs.RunResultView.as_view(), name="api-run-result"),
    path("runs/<int:run_id>/result.csv", runs.RunResultCsvView.as_view(), name="api-run-result-csv"),
    path("runs/<int:run_id>/workload", runs.RunWorkloadView.as_view(), name="api-run-workload"),
]
