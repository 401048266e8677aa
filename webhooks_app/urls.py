from django.urls import path

from webhooks_app import views

urlpatterns = [
    path("webhooks/", views.deliveries_page, name="webhook-deliveries"),
    path("webhooks/deliveries/<int:delivery_id>/redeliver", views.redeliver_page, name="webhook-redeliver"),
]
