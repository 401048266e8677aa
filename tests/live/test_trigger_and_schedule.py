"""The contract's `acceptance_drop` trigger (additive to specpact/v1) and beat's scheduled probes."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from contracts_app.document import canonical_json, validate_document
from live_app.models import Endpoint, Probe
from live_app.services import endpoint_create
from live_app.tasks import probe_endpoints
from tests.live.conftest import vllm_claim
from tests.support.documents import errors_of
from tests.support.factories import example

TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 3}


def _with(triggers: Any) -> dict[str, Any]:
    doc = example("contract-summaries-ngram")
    doc["rollback"]["triggers"] = triggers
    return doc


def test_a_contract_may_set_an_acceptance_floor() -> None:
    doc = validate_document(_with([TRIGGER]))
    assert doc.rollback.triggers is not None and doc.rollback.triggers[0].min_ratio == 0.8
    assert (
        validate_document(_with([{"kind": "acceptance_drop", "min_ratio": 0.5}])).rollback.triggers[0].windows
        == 3
    )


@pytest.mark.parametrize(
    ("triggers", "path"),
    [
        ([{**TRIGGER, "min_ratio": 0}], "rollback.triggers[0].min_ratio"),
        ([{**TRIGGER, "min_ratio": 1.5}], "rollback.triggers[0].min_ratio"),
        ([{**TRIGGER, "windows": 0}], "rollback.triggers[0].windows"),
        ([{**TRIGGER, "kind": "latency"}], "rollback.triggers[0].kind"),
        ([TRIGGER, TRIGGER], "rollback.triggers[1]"),
        ([], "rollback.triggers"),
    ],
)
def test_a_bad_trigger_is_refused_naming_the_field(triggers: Any, path: str) -> None:
    errors = errors_of(_with(triggers))
    assert any(e.path == path for e in errors), errors


def test_documents_without_triggers_keep_their_canonical_form() -> None:
    # A default would fill the canonical JSON and change every stored digest.
    assert b"triggers" not in canonical_json(validate_document(example("contract-summaries-ngram")))


def test_beat_probes_every_endpoint(route_v1: Any, operator: Any, emulator: Any) -> None:
    assert settings.CELERY_BEAT_SCHEDULE["live-probe-endpoints"]["task"] == "live_app.probe_endpoints"
    emu = emulator(*vllm_claim(), env={"VLLM_SERVER_DEV_MODE": "1"})
    endpoint_create(route=route_v1, name="prod-eu", base_url=emu.base_url, engine="vllm", actor=operator)
    endpoint_create(
        route=route_v1, name="gone", base_url="http://10.255.255.1:9", engine="vllm", actor=operator
    )
    assert probe_endpoints() == 2
    states = dict(Endpoint.objects.values_list("name", "state"))
    assert states == {"prod-eu": "conforms", "gone": "unknown"}
    assert Probe.objects.count() == 2
    assert Probe.objects.get(endpoint__name="gone").reason  # why it is unknown, in words


def test_old_history_is_pruned_but_the_last_probe_stays(route_v1: Any, operator: Any, emulator: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from live_app.services import endpoint_probe
    from live_app.tasks import history_prune

    emu = emulator(*vllm_claim(), env={"VLLM_SERVER_DEV_MODE": "1"})
    endpoint = endpoint_create(
        route=route_v1, name="prod-eu", base_url=emu.base_url, engine="vllm", actor=operator
    )
    first = endpoint_probe(endpoint=endpoint)
    last = endpoint_probe(endpoint=endpoint)
    long_ago = timezone.now() - timedelta(days=settings.ENDPOINT_HISTORY_DAYS + 1)
    Probe.objects.filter(pk__in=[first.pk, last.pk]).update(probed_at=long_ago)
    assert history_prune() >= 1
    assert list(Probe.objects.values_list("pk", flat=True)) == [last.pk]
