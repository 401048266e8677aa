"""Live-route tests: endpoints on loopback (the emulator, llama-server), so the allowed
networks include it here; the default leaves it out."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from contracts_app.document import validate_document
from kernel.outbound import LOOPBACK, OutboundPolicy
from live_app.conformance import Fetcher
from tests.support.factories import example, variant

LOOPBACK_AND_PRIVATE = "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
# The route's n-gram contract (vLLM 0.24.0): 5 speculative tokens, lookup 2..5.
NGRAM5 = {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_min": 2, "prompt_lookup_max": 5}
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE
    settings.ENDPOINT_PROBE_TIMEOUT_S = 3


def vllm_claim(**changes: Any) -> tuple[str, ...]:
    """Emulator flags: a vLLM serving the route's model with the n-gram claim, changed."""
    claim = {**NGRAM5, **changes}
    return ("--served-model-name", MODEL, "--speculation", json.dumps(claim), "--pattern", "3")


def contract(**changes: Any) -> Any:
    return validate_document(variant(example("contract-summaries-ngram"), **changes))


def fetcher(deadline_s: float = 3.0, max_bytes: int = 4 * 1024 * 1024) -> Fetcher:
    return Fetcher(OutboundPolicy(allowed=LOOPBACK), deadline_s=deadline_s, max_bytes=max_bytes)


def stream(emu: Any, requests: int = 1, model: str = MODEL, max_tokens: int = 9) -> None:
    """Traffic through the emulator (its counters move only with streamed steps)."""
    body = json.dumps({"model": model, "prompt": "x", "max_tokens": max_tokens, "stream": True}).encode()
    for _ in range(requests):
        request = urllib.request.Request(emu.base_url + "/v1/completions", data=body,
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
            response.read()
