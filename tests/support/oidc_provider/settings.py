"""The provider's settings; everything it needs comes from OIDC_PROVIDER_DIR and
OIDC_PROVIDER_URL, set by tests/support/oidc.py."""

from __future__ import annotations

import os
from pathlib import Path

STATE = Path(os.environ["OIDC_PROVIDER_DIR"])
BASE_URL = os.environ["OIDC_PROVIDER_URL"]

DEBUG = False
SECRET_KEY = (STATE / "secret_key").read_text()
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tests.support.oidc_provider.tamper.TamperIdTokenMiddleware",
]
ROOT_URLCONF = "tests.support.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [Path(__file__).parent / "templates"],
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": STATE / "provider.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
LOGIN_URL = "/accounts/login/"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # a test provider: fast

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (STATE / "oidc.key").read_text(),
    "OIDC_ISS_ENDPOINT": f"{BASE_URL}/o",
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    "OAUTH2_VALIDATOR_CLASS": "tests.support.oidc_provider.validator.GroupsValidator",
    "SCOPES": {"openid": "OpenID Connect", "profile": "profile", "email": "e-mail"},
}
