"""The real OpenID Connect provider (tests/support/oidc_provider/) in its own process: a
fresh RSA signing key, database and client secret per start, gunicorn on a loopback port.

    with OidcProvider(tmp_path, rp_base_url=live_server.url) as provider:
        settings.OIDC_OP_TOKEN_ENDPOINT = provider.endpoint("token/")
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.support.launcher import REPO, reserved_port, wait_for
from tests.support.processes import ProcessGroup

SETTINGS = "tests.support.oidc_provider.settings"
CLIENT_ID = "specpact"
GUNICORN = (sys.executable, "-m", "gunicorn", "--threads", "4")


class OidcProvider(ProcessGroup):
    def __init__(self, state: Path, *, rp_base_url: str) -> None:
        self.state, self.rp_base_url = state, rp_base_url
        self.client_secret = secrets.token_urlsafe(24)
        self.password = secrets.token_urlsafe(12)
        self._held = ExitStack()

    def __enter__(self) -> OidcProvider:
        self.state.mkdir(parents=True, exist_ok=True)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        (self.state / "oidc.key").write_bytes(pem)
        (self.state / "secret_key").write_text(secrets.token_urlsafe(40))
        port = self._held.enter_context(reserved_port())
        self.url = f"http://127.0.0.1:{port}"
        self.issuer = f"{self.url}/o"
        self._env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "DJANGO_SETTINGS_MODULE": SETTINGS,
            "OIDC_PROVIDER_DIR": str(self.state),
            "OIDC_PROVIDER_URL": self.url,
        }
        self._env.pop("DATABASE_URL", None)
        self._django("-m", "django", "migrate", "--verbosity", "0")
        self.admin("init", self.rp_base_url, self.client_secret, self.password)
        self.log = self.state / "provider.log"
        self.proc = subprocess.Popen(
            [*GUNICORN, "--bind", f"127.0.0.1:{port}", "tests.support.oidc_provider.wsgi"],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=self._env,
            start_new_session=True,
        )
        wait_for(self._answers, 30, f"the OIDC provider on {self.url} (log: {self.log})")
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()
        self._held.close()

    def _answers(self) -> bool:
        try:
            return httpx.get(self.endpoint(".well-known/jwks.json"), timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _django(self, *args: str) -> None:
        subprocess.run([sys.executable, *args], cwd=REPO, env=self._env, check=True, timeout=120)

    def admin(self, *args: str) -> None:
        """Run tests/support/oidc_provider/admin_cli.py against the provider's database."""
        self._django("-m", "tests.support.oidc_provider.admin_cli", *args)

    def endpoint(self, path: str) -> str:
        return f"{self.issuer}/{path}"

    def tamper(self, on: bool) -> None:
        """Change the signature of the ID tokens it hands out from now on (or stop)."""
        flag = self.state / "tamper"
        if on:
            flag.touch()
        else:
            flag.unlink(missing_ok=True)

    def rp_settings(self) -> dict[str, object]:
        """SpecPact's settings for this provider (what an operator sets from the environment)."""
        return {
            "OIDC_ENABLED": True,
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": self.client_secret,
            "OIDC_PROVIDER_NAME": "Test Provider",
            "OIDC_OP_ISSUER": self.issuer,
            "OIDC_OP_AUTHORIZATION_ENDPOINT": self.endpoint("authorize/"),
            "OIDC_OP_TOKEN_ENDPOINT": self.endpoint("token/"),
            "OIDC_OP_USER_ENDPOINT": self.endpoint("userinfo/"),
            "OIDC_OP_JWKS_ENDPOINT": self.endpoint(".well-known/jwks.json"),
            "OIDC_OP_END_SESSION_ENDPOINT": self.endpoint("logout/"),
            "AUTHENTICATION_BACKENDS": [
                "django.contrib.auth.backends.ModelBackend",
                "accounts_app.sso.SpecPactOIDCBackend",
            ],
        }
