from django.urls import path

from advice_app.api import views

urlpatterns = [
    path("routes/<slug:slug>/advice/", views.RouteAdviceListApi.as_view(), name="api-route-advice"),
    path("advice/<int:advice_id>/", views.AdviceDetailApi.as_view(), name="api-advice"),
    path("advice/<int:advice_id>/cancel", views.AdviceCancelApi.as_view(), name="api-advice-cancel"),
    path("advice/<int:advice_id>/draft", views.AdviceDraftApi.as_view(), name="api-advice-draft"),
    path("advice/<int:advice_id>/propose", views.AdviceProposeApi.as_view(), name="api-advice-propose"),
]
