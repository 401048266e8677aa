"""A real OpenID Connect provider for the single sign-on tests: a small Django project on
django-oauth-toolkit 3.4.1's OIDC provider (jazzband/django-oauth-toolkit,
oauth2_provider/settings.py: OIDC_ENABLED, OIDC_RSA_PRIVATE_KEY, OIDC_ISS_ENDPOINT,
OIDC_RP_INITIATED_LOGOUT_ENABLED; oauth2_provider/urls.py: authorize/, token/, userinfo/,
.well-known/jwks.json, logout/). tests/support/oidc.py starts it; its state (the RSA key,
an SQLite database, the tamper switch) lives in the directory OIDC_PROVIDER_DIR names."""
