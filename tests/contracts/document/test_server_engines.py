"""The server engines are named once, in the format (contracts_app.document.engines); the
worker, which cannot import the format, spells them again as its `ServerKind`, and the
places that key something by server engine must cover exactly them."""

from __future__ import annotations

from typing import get_args

from benchmarks_app.worker_fit import _SERVER_PACKAGES
from contracts_app.document.engines import ENGINES, SERVER_ENGINES
from live_app.choices import EndpointEngine
from live_app.conformance.probe import READERS
from worker.harness.plan import ServerKind


def test_the_workers_server_kinds_are_the_formats_server_engines_and_generic() -> None:
    assert get_args(ServerKind) == ("generic", *SERVER_ENGINES)


def test_every_engine_but_the_in_process_one_is_a_server_engine() -> None:
    assert set(ENGINES) - set(SERVER_ENGINES) == {"transformers"}
    assert set(SERVER_ENGINES) <= set(ENGINES)


def test_an_endpoint_can_be_every_server_engine_and_nothing_else() -> None:
    assert EndpointEngine.values == list(SERVER_ENGINES)
    assert EndpointEngine.labels == ["vLLM", "SGLang", "TGI", "llama.cpp", "TensorRT-LLM"]


def test_each_server_engine_has_a_conformance_reader_and_known_packages() -> None:
    assert set(READERS) == set(SERVER_ENGINES)
    assert set(_SERVER_PACKAGES) == set(SERVER_ENGINES)
