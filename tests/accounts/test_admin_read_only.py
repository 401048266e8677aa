"""The Django admin is read-only for every model it shows: no add, change or delete, so
every write goes through the services (validated, audited). Each registered model is
enumerated from `admin.site._registry`, so a model registered later without the
read-only base fails here."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from accounts_app.models import UserRole
from accounts_app.selectors import user_role
from audit_app.models import AuditEvent
from audit_app.services import audit_record
from contracts_app.models import ContractVersion, Route
from live_app.services.bindings import binding_create
from releases_app.models import Decision
from tests.support.factories import example, make_token, make_user, make_version
from tests.support.releases import activate

pytestmark = pytest.mark.django_db

REGISTERED = sorted(admin.site._registry, key=lambda m: m._meta.label)


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def everything(proposer: Any, approver: Any, admin: Any) -> None:
    """At least one row of every registered model, made through the real services."""
    activate(make_version("contract-summaries", example()), proposer, approver)
    binding_create(
        route=Route.objects.get(slug="contract-summaries"),
        name="prod-key",
        kind="env",
        reference="SPECPACT_ENDPOINT_PROD_KEY",
        hosts=["10.0.0.7:8000"],
        actor=admin,
    )
    make_token(approver, "approver")
    Group.objects.create(name="operators")
    audit_record(actor=None, action="test.event", obj_type="thing", obj_id=1)


@pytest.fixture
def superuser_client(admin: Any) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def _url(model: Any, view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_registered_model_is_read_only(everything: None, superuser_client: Client) -> None:
    assert len(REGISTERED) >= 8  # the domain models, users and groups
    for model in REGISTERED:
        name = model._meta.label
        model_admin = admin.site._registry[model]
        obj = model._default_manager.order_by("pk").first()
        assert obj is not None, f"no {name} to try the admin on: add one to the `everything` fixture"
        count = model._default_manager.count()

        assert superuser_client.get(_url(model, "changelist")).status_code == 200, name
        assert superuser_client.get(_url(model, "add")).status_code == 403, name
        assert superuser_client.post(_url(model, "add"), {}).status_code == 403, name
        # The detail page shows the row without a form to change it.
        detail = superuser_client.get(_url(model, "change", obj.pk))
        assert detail.status_code == 200 and b'name="_save"' not in detail.content, name
        assert superuser_client.post(_url(model, "change", obj.pk), {}).status_code == 403, name
        assert superuser_client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403, name
        # Nor the bulk action on the list.
        bulk = {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"}
        superuser_client.post(_url(model, "changelist"), bulk)
        assert "delete_selected" not in model_admin.get_actions(detail.wsgi_request), name
        assert model._default_manager.count() == count, name


def test_a_role_cannot_change_in_the_admin_unaudited(
    everything: None, superuser_client: Client, viewer: Any
) -> None:
    events = AuditEvent.objects.count()
    row = UserRole.objects.get(user=viewer)
    response = superuser_client.post(_url(UserRole, "change", row.pk), {"user": viewer.pk, "role": "admin"})
    assert response.status_code == 403
    # A superuser flag is a role too (superusers are admins).
    response = superuser_client.post(
        _url(type(viewer), "change", viewer.pk),
        {"username": viewer.username, "is_superuser": "on", "is_staff": "on", "is_active": "on"},
    )
    assert response.status_code == 403
    viewer.refresh_from_db()
    assert user_role(viewer) == "viewer" and not viewer.is_superuser
    assert AuditEvent.objects.count() == events


def test_a_route_cannot_be_deleted_nor_a_version_forged_in_the_admin(
    everything: None, superuser_client: Client
) -> None:
    events = AuditEvent.objects.count()
    route = Route.objects.get(slug="contract-summaries")
    assert superuser_client.post(_url(Route, "delete", route.pk), {"post": "yes"}).status_code == 403
    forged = {"route": route.pk, "number": 9, "digest": "sha256:" + "0" * 64, "document": "{}"}
    assert superuser_client.post(_url(ContractVersion, "add"), forged).status_code == 403
    assert Route.objects.filter(pk=route.pk).exists()
    assert not ContractVersion.objects.filter(number=9).exists()
    assert Decision.objects.exists() and AuditEvent.objects.count() == events


def test_setrole_changes_a_role_with_an_audit_event(viewer: Any) -> None:
    out = StringIO()
    call_command("setrole", viewer.username, "approver", stdout=out)
    viewer.refresh_from_db()
    assert user_role(viewer) == "approver" and "viewer → approver" in out.getvalue()
    event = AuditEvent.objects.filter(action="user.role_changed").get()
    assert (event.before, event.after, event.actor_label) == (
        {"role": "viewer"},
        {"role": "approver"},
        "system:setrole",
    )
    with pytest.raises(CommandError, match="superuser"):
        call_command("setrole", make_user("root", None, is_superuser=True).username, "viewer")
    with pytest.raises(CommandError, match="no user"):
        call_command("setrole", "nobody", "viewer")
