from django.urls import path

from live_app import views

urlpatterns = [
    path(
        "routes/<str:slug>/endpoints/<str:name>/probe", views.endpoint_probe_ask, name="route-endpoint-probe"
    ),
]
