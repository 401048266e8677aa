"""Migration live_app 0004: each endpoint's old `auth_ref` becomes a binding of its route
for the hosts its URLs are on, and the endpoint names it. Run for real: the database is
taken back to 0003, rows written as they were, then migrated forward."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from live_app.models import Endpoint, SecretBinding

BEFORE = [("live_app", "0003_endpoint_expected_version")]
AFTER = [("live_app", "0004_secret_bindings")]


def _models_at(target: list[tuple[str, str]]) -> Any:
    return MigrationExecutor(connection).loader.project_state(target).apps


@pytest.mark.usefixtures("transactional_db")
def test_an_old_auth_reference_becomes_a_binding_of_its_route_for_its_hosts(operator: Any) -> None:
    call_command("migrate", "live_app", BEFORE[0][1], verbosity=0)
    try:
        old = _models_at(BEFORE)
        route = old.get_model("contracts_app", "Route").objects.create(slug="contract-summaries")
        endpoint = old.get_model("live_app", "Endpoint")
        endpoint.objects.create(
            route=route,
            name="prod-eu",
            base_url="http://VLLM.internal:8000/v1",
            metrics_url="http://10.0.0.5:9100/metrics",
            engine="vllm",
            expects="active",
            auth_ref={"env": "SPECPACT_ENDPOINT_PROD_KEY"},
            created_by_id=operator.pk,
        )
        endpoint.objects.create(
            route=route,
            name="canary",
            base_url="https://[FD00::5]/",
            engine="vllm",
            expects="active",
            auth_ref={"file": "/var/secrets/canary"},
        )
        endpoint.objects.create(
            route=route, name="open", base_url="http://10.0.0.6:8000", engine="vllm", expects="active"
        )
        call_command("migrate", "live_app", AFTER[0][1], verbosity=0)
    finally:
        call_command("migrate", verbosity=0)
    prod = Endpoint.objects.select_related("auth_binding").get(name="prod-eu")
    assert prod.auth_binding is not None
    assert (prod.auth_binding.name, prod.auth_binding.kind, prod.auth_binding.reference) == (
        "prod-eu",
        "env",
        "SPECPACT_ENDPOINT_PROD_KEY",
    )
    assert prod.auth_binding.hosts == ["vllm.internal:8000", "10.0.0.5:9100"]
    assert prod.auth_binding.created_by_id == operator.pk
    canary = SecretBinding.objects.get(name="canary")
    assert (canary.kind, canary.reference, canary.hosts) == ("file", "/var/secrets/canary", ["[fd00::5]"])
    assert Endpoint.objects.get(name="canary").auth_binding == canary
    assert Endpoint.objects.get(name="open").auth_binding is None
    assert SecretBinding.objects.count() == 2
