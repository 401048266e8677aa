"""A managed arm starts its server with the contract's speculation.env (issue 23): the
worker's ManagedEngine takes `env`, and a run of a contract that sets one must not measure
the engine without it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from benchmarks_app.spec_build import arm_engine
from tests.support.documents import EAGLE_HEAD, base


def _version(document: dict[str, Any]) -> Any:
    return SimpleNamespace(document=document)


def test_the_managed_engine_carries_the_contracts_env() -> None:
    doc = base()
    doc["target"]["engine"] = "sglang"
    doc["target"].pop("engine_version")
    doc["speculation"] = {
        "method": "eagle",
        "num_speculative_tokens": 3,
        "env": {"SGLANG_ENABLE_SPEC_V2": "1"},
    }
    doc["assets"] = [dict(EAGLE_HEAD)]
    engine, rendered = arm_engine(_version(doc), "managed", None)
    assert engine["env"] == {"SGLANG_ENABLE_SPEC_V2": "1"} == rendered["env"]
    assert engine["argv"][:3] == ["python", "-m", "sglang.launch_server"]


def test_a_contract_without_env_adds_none() -> None:
    doc = base()
    doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 4}
    engine, _ = arm_engine(_version(doc), "managed", None)
    assert "env" not in engine
