from django.urls import path

from webhooks_app.api import views

urlpatterns = [
    path("webhooks/", views.WebhookListApi.as_view(), name="api-webhooks"),
    path("webhooks/<int:webhook_id>/", views.WebhookDetailApi.as_view(), name="api-webhook"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        views.DeliveryListApi.as_view(),
        name="api-webhook-deliveries",
    ),
    path(
        "webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/redeliver",
        views.DeliveryRedeliverApi.as_view(),
        name="api-webhook-redeliver",
    ),
]
