from django.urls import path

from workloads_app import views

urlpatterns = [
    path("workloads/", views.workload_list, name="workload-list"),
    path("workloads/<str:key>/", views.workload_detail, name="workload-detail"),
]
