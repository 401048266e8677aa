from django.contrib.auth import views as auth_views
from django.urls import path

from accounts_app import views
from accounts_app.login import RateLimitedLoginView

urlpatterns = [
    path(
        "login/",
        RateLimitedLoginView.as_view(),
        name="login",
    ),
    # Django's LogoutView answers POST only: a GET link can't sign someone out (CSRF).
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("tokens/", views.token_list, name="token-list"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token-revoke"),
]
