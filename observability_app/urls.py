from django.urls import path

from observability_app import views

urlpatterns = [path("metrics", views.metrics, name="metrics")]
