"""What one probe collects while a reader reads an engine: the fields compared (contract
value, engine value), the differences, the fields the engine does not report, the reads
kept as evidence, and the speculation counters for the acceptance watch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contracts_app.document.engines import KNOWLEDGE, asset_role
from live_app.conformance.fetch import Fetched, fact

# Paths of the contract a probe holds against the engine where the engine says them.
METHOD = "speculation.method"
TOKENS = "speculation.num_speculative_tokens"


@dataclass
class Counters:
    """Cumulative speculation counters read from the engine (since its start)."""

    source: str
    draft_tokens: float | None
    accepted_tokens: float | None
    drafts: float | None
    # Tokens generated since start, where the engine says (TensorRT-LLM): with drafting at a
    # standstill while tokens are generated, the engine switched speculation off by itself.
    generated_tokens: float | None = None


class Reading:
    """Collects one probe's comparisons. A reader calls `compare` where the engine says a
    field's value, `speculates` where it says only THAT it speculates (not which method),
    and `not_reported` for each field it looked for and that release does not say."""

    def __init__(self) -> None:
        self.differences: list[dict[str, Any]] = []
        self.unknown: list[str] = []
        self.checked: dict[str, tuple[Any, Any]] = {}  # path → (contract, engine) compared
        # path → (contract, what the engine said): it speculates, as the contract says, and
        # does not say which method.
        self.partly: dict[str, tuple[Any, Any]] = {}
        self.fetched: dict[str, Fetched] = {}
        self.failures: list[str] = []
        self.counters: Counters | None = None
        self.reached = False
        self.metrics_refused = ""  # why the endpoint's metrics_url may not be read, if so
        # What else the engine showed that bears on the contract, in words, for the coverage
        # (e.g. llama.cpp's probe completion: "6 tokens drafted, 6 accepted, in …").
        self.seen: list[str] = []

    def compare(self, path: str, contract: Any, engine: Any) -> None:
        self.partly.pop(path, None)
        self.checked[path] = (fact(contract), fact(engine))
        if norm(contract) != norm(engine):
            self.differences.append({"path": path, "contract": contract, "engine": fact(engine)})

    def speculates(self, contract_method: str, speculating: bool, said: str) -> None:
        """The engine says whether it speculates (`said`: how, in words, e.g. "speculating
        (/slots)"), not which method. Off where the contract speculates, or on where it
        says `none`, is a difference on the method; both off verifies `none`; both on is
        as far as the engine tells (`partly`)."""
        if METHOD in self.checked:
            return
        contract_speculates = norm(contract_method) != "none"
        if contract_speculates != speculating:
            self.compare(METHOD, contract_method, said if speculating else "none")
        elif not speculating:
            self.compare(METHOD, "none", "none")
        else:
            self.partly[METHOD] = (fact(contract_method), fact(said))

    def not_reported(self, path: str) -> None:
        # A field the engine says only in part (`partly`) is listed too: its value is not said.
        if path not in self.checked and path not in self.unknown:
            self.unknown.append(path)

    def keep(self, name: str, fetched: Fetched) -> None:
        self.fetched[name] = fetched
        self.reached = self.reached or fetched.ok
        if fetched.failure and fetched.status != 404:
            self.failures.append(f"{fetched.url}: {fetched.failure}")

    def evidence(self) -> dict[str, Any]:
        return {name: fetched.facts() for name, fetched in self.fetched.items()}


def norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def field_path(engine: str, name: str, method: str) -> str:
    """The contract path an engine key or flag carries (asset paths keyed by role), from the
    engine table (`engines/<engine>.py`, `Feature.field`)."""
    kinds = ("key",) if engine == "vllm" else ("flag",)
    spelled = name if engine == "vllm" else "--" + name.replace("_", "-")
    feats = [f for f in KNOWLEDGE[engine].features if f.kind in kinds and spelled in f.spellings and f.field]
    feat = next((f for f in feats if f.method == method), None) or next(iter(feats), None)
    path = feat.field if feat and feat.field else f"speculation.{name}"
    if path.startswith("assets."):
        role = asset_role(method) or "draft"
        path = f"assets[role={role}].{path.split('.', 1)[1]}"
    return path
