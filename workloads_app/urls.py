from django.urls import path

from workloads_app import views

urlpatterns = [
    path("workloads/", views.workload_list, name="workload-list"),
    # The audit log names a workload by its id (`workload:7`); this finds its page.
    path("workloads/by-id/<int:pk>/", views.workload_by_id, name="workload-by-id"),
    path("workloads/<str:key>/", views.workload_detail, name="workload-detail"),
]
