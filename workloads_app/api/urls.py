from django.urls import path

from workloads_app.api import views

urlpatterns = [
    path("workloads/", views.WorkloadListApi.as_view(), name="api-workloads"),
    path("workloads/<str:key>/", views.WorkloadDetailApi.as_view(), name="api-workload"),
    path("workloads/<str:key>/content", views.WorkloadContentApi.as_view(), name="api-workload-content"),
]
