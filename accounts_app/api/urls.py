from django.urls import path

from accounts_app.api import views

urlpatterns = [
    path("tokens/", views.TokenListApi.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>/", views.TokenDetailApi.as_view(), name="api-token"),
    path("tokens/<int:token_id>/revoke", views.TokenRevokeApi.as_view(), name="api-token-revoke"),
]
