from django.urls import path

from workloads_app import upload_page, views

urlpatterns = [
    path("workloads/", views.workload_list, name="workload-list"),
    # Not under workloads/<key>/, which a workload's name may take.
    path("workload-upload/", upload_page.workload_upload_page, name="workload-upload"),
    # The audit log names a workload by its id (`workload:7`); this finds its page.
    path("workloads/by-id/<int:pk>/", views.workload_by_id, name="workload-by-id"),
    path("workloads/<str:key>/", views.workload_detail, name="workload-detail"),
]
