from django.urls import path

from dashboard_app.api import checklist

urlpatterns = [
    path("routes/<str:slug>/checklist", checklist.ChecklistApi.as_view(), name="api-route-checklist"),
]
