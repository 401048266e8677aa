"""Contract documents: the five example contracts, renamed per route and varied from version
to version the way teams edit them (a token count tuned, a revision bumped, a lane added, a
threshold tightened, a description reworded). Every document is validated by the
project's own `validate_document` and stored as `normalize` gives it, with the digest
from `document_digest`; a variation that the engine rules refuse is simply not kept.

The measured workloads are replaced by a small menu (`WORKLOADS`) so that a result has
~133 requests on average (2 arms × levels × requests per level): 15,000 results make
about 2,000,000 per-request samples."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from contracts_app.document import ContractError, document_digest, normalize, validate_document
from contracts_app.examples import examples_dir

TEAMS = [
    "payments",
    "claims",
    "search",
    "legal",
    "hr",
    "ops",
    "billing",
    "risk",
    "fraud",
    "growth",
    "support",
    "sales",
    "care",
    "docs",
    "infra",
    "security",
    "compliance",
    "finance",
    "procurement",
    "audit",
    "travel",
    "logistics",
    "pricing",
    "ads",
    "mobile",
    "web",
    "data",
    "platform",
    "identity",
    "onboarding",
    "kyc",
    "lending",
    "cards",
    "treasury",
    "tax",
    "insurance",
    "health",
    "research",
    "edu",
    "media",
    "news",
    "maps",
    "voice",
    "translate",
    "retail",
    "energy",
    "telco",
    "gov",
    "pharma",
]
REGIONS = ("eu", "us", "ap", "sa")

# (concurrency | rate, requests per level): 128 or 144 requests per result.
_MANAGED_MENU: tuple[tuple[dict[str, Any], int, float], ...] = (
    ({"concurrency": [1, 4]}, 32, 0.30),
    ({"concurrency": [1, 8]}, 32, 0.18),
    ({"rate": [2.0, 8.0]}, 32, 0.10),
    ({"concurrency": [1, 4, 16]}, 24, 0.42),
)
_IN_PROCESS_MENU: tuple[tuple[dict[str, Any], int, float], ...] = (({"concurrency": [1]}, 64, 1.0),)
MAX_TOKENS = (64, 128, 128, 128)

NOTES = (
    "Reviewed with the serving team; the draft checkpoint is mirrored internally.",
    "Numbers from the nightly benchmark on the shared pool; see the release for the gate.",
    "Tightened after the incident review: rollback on any output change.",
    "Canary first in one region, then everywhere.",
)
DESCRIPTIONS = (
    "{team} {lane} assistant ({region}).",
    "{team}: {lane} for the {region} desk.",
    "{Team} {lane} lane, {region} deployment.",
)


@dataclass(frozen=True)
class StoredDocument:
    """A document as a version stores it."""

    document: dict[str, Any]
    digest: str
    method: str


@cache
def templates() -> dict[str, dict[str, Any]]:
    """The example contracts by file name (they must validate as they are: DESIGN §8)."""
    out = {}
    for path in sorted(examples_dir().glob("*.yaml")):
        out[path.stem] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return out


def route_names(count: int) -> list[tuple[str, str]]:
    """(slug, template name) for `count` routes: every template in turn, team by team."""
    names = list(templates())
    out = []
    for i in range(count):
        template = names[i % len(names)]
        team = TEAMS[(i // len(names)) % len(TEAMS)]
        region = REGIONS[(i // (len(names) * len(TEAMS))) % len(REGIONS)]
        base = templates()[template]["route"]
        cycle = i // (len(names) * len(TEAMS) * len(REGIONS))
        slug = f"{team}-{base}-{region}" + (f"-{cycle}" if cycle else "")
        out.append((slug, template))
    return out


def store(document: dict[str, Any]) -> StoredDocument:
    """Validated, normalized and digested by the project's document core (ContractError if
    the rules refuse it)."""
    contract = validate_document(document)
    return StoredDocument(normalize(contract), document_digest(contract), contract.speculation.method)


def _workloads(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    in_process = doc["target"]["engine"] == "transformers"
    menu = _IN_PROCESS_MENU if in_process else _MANAGED_MENU
    allowed = list(doc["lanes"]["allowed"])
    lanes = allowed[: rng.choice((1, 2))] if len(allowed) > 1 else allowed
    out = {}
    for lane in lanes:
        levels, per_level, _ = rng.choices(menu, weights=[w for *_, w in menu])[0]
        out[lane] = {
            "dataset": f"builtin:{lane}",
            **copy.deepcopy(levels),
            "requests_per_level": per_level,
            "max_tokens": rng.choice(MAX_TOKENS),
        }
    return out


def first_document(slug: str, template: str, rng: random.Random) -> dict[str, Any]:
    doc = copy.deepcopy(templates()[template])
    doc["route"] = slug
    team, _, rest = slug.partition("-")
    region = rest.rsplit("-", 1)[-1]
    lane = doc["lanes"]["allowed"][0].replace("_", " ")
    doc["description"] = rng.choice(DESCRIPTIONS).format(
        team=team, Team=team.capitalize(), lane=lane, region=region
    )
    doc["measurement"]["workloads"] = _workloads(doc, rng)
    # The examples' memory rule needs a GPU to measure; keep it on about half the routes.
    if rng.random() < 0.5:
        doc["measurement"].pop("memory_headroom_min_gib", None)
    return doc


def _hex(rng: random.Random, nibbles: int = 40) -> str:
    return f"{rng.getrandbits(4 * nibbles):0{nibbles}x}"


def _tokens(doc: dict[str, Any], rng: random.Random) -> None:
    spec = doc["speculation"]
    if spec.get("method", "none") == "none":
        return
    top = 10 if doc["target"]["engine"] == "transformers" else 7
    spec["num_speculative_tokens"] = rng.randint(2, top)
    for step in (spec.get("params") or {}).get("token_schedule") or []:
        step["num_speculative_tokens"] = min(step["num_speculative_tokens"], spec["num_speculative_tokens"])


def _revision(doc: dict[str, Any], rng: random.Random) -> None:
    if doc["target"]["engine"] == "transformers":
        return  # the in-process engine serves the GGUF the worker ships, by its revision
    doc["target"]["revision"] = _hex(rng)
    doc["compatibility"]["tokenizer"]["revision"] = doc["target"]["revision"]
    for asset in doc.get("assets") or []:
        if asset.get("tokenizer", {}).get("name") == doc["compatibility"]["tokenizer"]["name"]:
            asset["tokenizer"]["revision"] = doc["target"]["revision"]


def _asset_revision(doc: dict[str, Any], rng: random.Random) -> None:
    for asset in doc.get("assets") or []:
        asset["revision"] = _hex(rng)


def _engine_version(doc: dict[str, Any], rng: random.Random) -> None:
    engine = doc["target"]["engine"]
    choices = {"vllm": ("0.11.0", "0.22.1", "0.23.0", "0.24.0"), "tgi": ("3.2.0", "3.3.0", "3.3.4")}
    if engine in choices:
        doc["target"]["engine_version"] = rng.choice(choices[engine])


def _batching(doc: dict[str, Any], rng: random.Random) -> None:
    batching = doc["compatibility"]["batching"]
    if doc["target"]["engine"] == "transformers":
        return
    batching["max_batch_size"] = rng.choice((16, 32, 64, 128, 256))
    if doc["target"]["engine"] == "vllm" and doc["speculation"].get("method") != "none":
        if rng.random() < 0.4:
            batching["speculation_off_above_batch_size"] = rng.choice((4, 8, 16))
        else:
            batching.pop("speculation_off_above_batch_size", None)


def _ngram(doc: dict[str, Any], rng: random.Random) -> None:
    spec = doc["speculation"]
    if spec.get("method") != "ngram" or doc["target"]["engine"] != "vllm":
        return
    low = rng.randint(1, 3)
    spec["params"] = {"prompt_lookup_min": low, "prompt_lookup_max": low + rng.randint(0, 4)}


def _speculation_toggle(doc: dict[str, Any], rng: random.Random, template: dict[str, Any]) -> None:
    """Speculation switched off, or back on as the template has it."""
    if doc["speculation"].get("method", "none") != "none":
        doc["speculation"] = {"method": "none"}
        doc["assets"] = []
        doc["compatibility"]["batching"].pop("speculation_off_above_batch_size", None)
        if doc["rollback"].get("to") == "speculation_off":
            doc["rollback"]["to"] = "previous"
    else:
        doc["speculation"] = copy.deepcopy(template["speculation"])
        doc["assets"] = copy.deepcopy(template.get("assets") or [])
        _revision_sync(doc)


def _revision_sync(doc: dict[str, Any]) -> None:
    rev = doc["compatibility"]["tokenizer"].get("revision")
    for asset in doc.get("assets") or []:
        tok = asset.get("tokenizer")
        if tok and tok.get("name") == doc["compatibility"]["tokenizer"]["name"] and rev:
            tok["revision"] = rev


def _lanes(doc: dict[str, Any], rng: random.Random) -> None:
    lanes = doc["lanes"]
    measured = set(doc["measurement"]["workloads"])
    spare = [
        x for x in ("chat", "summarization", "extraction", "document_review", "agent") if x not in measured
    ]
    pick = rng.choice(spare) if spare else None
    if pick is None:
        return
    if pick in lanes["allowed"]:
        lanes["allowed"].remove(pick)
    elif pick in lanes.get("excluded", []):
        lanes["excluded"].remove(pick)
        lanes["allowed"].append(pick)
    else:
        lanes.setdefault("excluded", []).append(pick)


def _standards(doc: dict[str, Any], rng: random.Random) -> None:
    m = doc["measurement"]
    for item in m.get("improve") or []:
        item["min_ratio"] = rng.choice((1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.5))
    for item in m.get("non_inferiority") or []:
        item["max_ratio"] = rng.choice((1.0, 1.05, 1.1, 1.15, 1.25))


def _workload_change(doc: dict[str, Any], rng: random.Random) -> None:
    doc["measurement"]["workloads"] = _workloads(doc, rng)


def _rollback(doc: dict[str, Any], rng: random.Random) -> None:
    has_speculation = doc["speculation"].get("method", "none") != "none"
    targets = ["previous", "version:1"] + (["speculation_off"] if has_speculation else [])
    doc["rollback"]["to"] = rng.choice(targets)


def _description(doc: dict[str, Any], rng: random.Random) -> None:
    words = doc.get("description", "").rstrip(".").split(" (rev")[0]
    doc["description"] = f"{words} (rev {rng.randint(2, 999)})."


def _notes(doc: dict[str, Any], rng: random.Random) -> None:
    doc["notes"] = rng.choice(NOTES)


# (weight, mutation); the toggle needs the template and is handled apart.
_MUTATIONS = (
    (14, _tokens),
    (8, _revision),
    (4, _asset_revision),
    (4, _engine_version),
    (5, _batching),
    (5, _ngram),
    (6, _lanes),
    (9, _standards),
    (5, _workload_change),
    (3, _rollback),
    (10, _description),
    (6, _notes),
)
_TOGGLE_WEIGHT = 4


def next_document(
    previous: dict[str, Any], template: str, rng: random.Random, *, taken: set[str], cosmetic: bool = False
) -> StoredDocument:
    """A new version after `previous`: one to three edits (only cosmetic ones when asked),
    valid under the engine rules and not a digest the route already has."""
    for _ in range(50):
        doc = copy.deepcopy(previous)
        if cosmetic:
            rng.choice((_description, _notes))(doc, rng)
        else:
            for _ in range(rng.choice((1, 1, 2, 3))):
                if rng.random() * (sum(w for w, _ in _MUTATIONS) + _TOGGLE_WEIGHT) < _TOGGLE_WEIGHT:
                    _speculation_toggle(doc, rng, templates()[template])
                else:
                    rng.choices([m for _, m in _MUTATIONS], weights=[w for w, _ in _MUTATIONS])[0](doc, rng)
        try:
            stored = store(doc)
        except ContractError:
            continue
        if stored.digest not in taken:
            return stored
    raise RuntimeError(f"no new valid variation of {previous.get('route')} after 50 tries")
