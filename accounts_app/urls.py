from django.urls import path

from accounts_app import sso_views, views
from accounts_app.login import RateLimitedLoginView

urlpatterns = [
    path(
        "login/",
        RateLimitedLoginView.as_view(),
        name="login",
    ),
    # Django's LogoutView answers POST only: a GET link can't sign someone out (CSRF).
    path("logout/", sso_views.logout, name="logout"),
    # The names are mozilla-django-oidc's (mozilla_django_oidc/urls.py, 5.0.2): its views
    # reverse "oidc_authentication_callback" for the redirect_uri.
    path("oidc/authenticate/", sso_views.sso_authenticate, name="oidc_authentication_init"),
    path("oidc/callback/", sso_views.sso_callback, name="oidc_authentication_callback"),
    path("tokens/", views.token_list, name="token-list"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token-revoke"),
]
