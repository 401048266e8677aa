"""Set the provider's world up and change it: `init <rp_base_url> <client_secret>
<password>` (the client and users), `groups <username> [group ...]` (that user's groups,
replacing the old ones)."""

from __future__ import annotations

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.support.oidc_provider.settings")
django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from oauth2_provider.models import Application  # noqa: E402

CLIENT_ID = "specpact"


def init(rp_base_url: str, client_secret: str, password: str) -> None:
    Application.objects.create(
        name="SpecPact",
        client_id=CLIENT_ID,
        client_secret=client_secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=f"{rp_base_url}/oidc/callback/",
        post_logout_redirect_uris=f"{rp_base_url}/login/",
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )
    for name in ("alice", "bob"):
        User.objects.create_user(name, email=f"{name}@example.test", password=password)


def set_groups(username: str, names: list[str]) -> None:
    user = User.objects.get(username=username)
    user.groups.set([Group.objects.get_or_create(name=name)[0] for name in names])


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "init":
        init(*args)
    elif command == "groups":
        set_groups(args[0], args[1:])
    else:
        raise SystemExit(f"unknown command {command!r}")
