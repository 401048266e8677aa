"""What every engine adapter shares: the result types, a command-line reader that knows
which options take a value, and the skeleton of an imported document (with what a
command line cannot say, said, and what it says that a contract cannot hold, refused)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engines.verifiers import LOSSY
from ..errors import ContractError, FieldError
from ..schema import ContractDocument


@dataclass
class RenderedConfig:
    engine: str
    argv: list[str]
    shell: str
    config: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    # Environment variables the engine must start with (speculation.env); `shell` sets them
    # before the command (`VAR=value cmd`).
    env: dict[str, str] = field(default_factory=dict)
    # Files the command reads, by the name argv gives them (TensorRT-LLM's YAML config): the
    # worker writes each beside the server before it starts it.
    files: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "engine": self.engine,
            "argv": list(self.argv),
            "shell": self.shell,
            "config": self.config,
            "notes": list(self.notes),
            "env": dict(self.env),
        }
        if self.files:
            out["files"] = dict(self.files)
        return out


@dataclass
class ImportResult:
    """`document` is a contract dict; `unresolved` names each field the command could not
    say (filled with a placeholder or left out), each word that is not part of a contract,
    and each renamed or removed flag with its replacement."""

    document: dict[str, Any]
    unresolved: list[FieldError] = field(default_factory=list)


def rendered(engine: str, argv: list[str], config: dict[str, Any], notes: list[str]) -> RenderedConfig:
    return RenderedConfig(engine=engine, argv=argv, shell=shlex.join(argv), config=config, notes=notes)


def common_notes(doc: ContractDocument, engine_name: str) -> list[str]:
    decoding = doc.compatibility.decoding
    notes = [
        f"decoding modes ({', '.join(decoding.modes)}) are chosen per request: {engine_name} does not "
        "enforce them; the route's clients must"
    ]
    if decoding.temperature_max is not None:
        notes.append(f"keep the request temperature at or below {decoding.temperature_max}")
    return notes


class Args:
    """A command line read option by option: `--opt value`, `--opt=value`, bare flags
    (`flags`), options known to take a value (`valued`: the next word is theirs even if it
    starts with a dash), and positionals. `normalize` maps a spelling to the engine's own
    (vLLM reads `--speculative_config` as `--speculative-config`). What nobody takes is
    reported, never silently dropped."""

    def __init__(
        self,
        argv: Iterable[str],
        flags: Iterable[str] = (),
        valued: Iterable[str] = (),
        normalize: Callable[[str], str] | None = None,
    ) -> None:
        self.positionals: list[str] = []
        self.options: dict[str, str | None] = {}
        self.spelled: dict[str, str] = {}
        bare, takes = set(flags), set(valued)
        tokens = list(argv)
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if _looks_like_option(token):
                written, eq, value = token.partition("=")
                name = normalize(written) if normalize else written
                self.spelled[name] = written
                if eq:
                    self.options[name] = value
                elif name in bare or i + 1 >= len(tokens):
                    self.options[name] = None
                elif name in takes or not _looks_like_option(tokens[i + 1]):
                    self.options[name] = tokens[i + 1]
                    i += 1
                else:
                    self.options[name] = None
            else:
                self.positionals.append(token)
            i += 1

    def add(self, name: str, value: str | None, spelled: str) -> None:
        """An option that came from elsewhere (an environment variable); the command line wins."""
        if name not in self.options:
            self.options[name] = value
            self.spelled[name] = spelled

    def given(self, name: str) -> bool:
        return name in self.options

    def take(self, *names: str) -> str | None:
        value: str | None = None
        for name in names:
            if name in self.options:
                got = self.options.pop(name)
                value = got if got is not None else value
        return value

    def take_flag(self, *names: str) -> bool:
        found = any(n in self.options for n in names)
        for name in names:
            self.options.pop(name, None)
        return found

    def take_int(self, *names: str) -> int | None:
        raw = self.take(*names)
        if raw is None:
            return None
        try:
            return int(raw)
        except ValueError:
            raise import_error(f"{names[0]} takes a whole number, got {raw!r}") from None


def _is_number(token: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", token) is not None


def _looks_like_option(token: str) -> bool:
    return token.startswith("-") and len(token) > 1 and not _is_number(token)


def import_error(message: str) -> ContractError:
    return ContractError("The command line could not be imported.", [FieldError("argv", message)])


def slugify(name: str) -> str:
    base = name.rstrip("/").rsplit("/", 1)[-1].lower()
    base = re.sub(r"\.gguf$", "", base)
    slug = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:64].strip("-")
    return slug or "imported-route"


class Skeleton:
    """Builds an imported document. Fields the format requires but a command line cannot
    say get placeholders; optional ones are left out; both are recorded in `unresolved`.
    Words that change speculation but that the format cannot hold are collected in
    `refused`: the import then fails, naming every one of them."""

    def __init__(self, engine: str, engine_name: str, engine_version: str | None = None) -> None:
        self.engine = engine
        self.engine_name = engine_name
        self.engine_version = engine_version
        self.unresolved: list[FieldError] = []
        self.refused: list[FieldError] = []
        # Engine knobs the command sets (speculation.params.engine) and the variables it
        # starts with that change speculation (speculation.env); see words.judge.
        self.engine_params: dict[str, Any] = {}
        self.env: dict[str, str] = {}

    def say(self, path: str, message: str) -> None:
        self.unresolved.append(FieldError(path, message))

    def refuse(self, word: str, message: str) -> None:
        self.refused.append(FieldError("argv", f"{word}: {message}"))

    def result(self, *, notes: Iterable[FieldError] = (), **fields: Any) -> ImportResult:
        if self.refused:
            raise ContractError(
                "The command line changes speculation in ways specpact/v1 cannot hold; nothing was imported.",
                self.refused,
            )
        self.unresolved.extend(notes)
        fields["speculation"] = self._with_knobs(dict(fields["speculation"]))
        document = self.document(**fields)
        if document["speculation"].get("verifier") in LOSSY:  # a lossy verifier: a lossy contract
            document = {"verification": "lossy", **document}
        return ImportResult(document=document, unresolved=self.unresolved)

    def _with_knobs(self, speculation: dict[str, Any]) -> dict[str, Any]:
        if speculation.get("method", "none") == "none":
            for name in [*self.engine_params, *self.env]:
                self.say(
                    "argv", f"{name} is a speculation setting and the command does not speculate: left out"
                )
            return speculation
        if self.engine_params:
            speculation["params"] = {**speculation.get("params", {}), "engine": dict(self.engine_params)}
        if self.env:
            speculation["env"] = dict(self.env)
        return speculation

    def document(
        self,
        *,
        model: str,
        revision: str | None,
        tokenizer: dict[str, Any],
        speculation: dict[str, Any],
        assets: list[dict[str, Any]],
        modes: list[str] | None = None,
        max_batch_size: int | None,
        max_concurrency: int | None,
        speculation_off_above: int | None = None,
    ) -> dict[str, Any]:
        route = slugify(model)
        self.say("route", f"placeholder {route!r}, made from the model name: name the route")
        target: dict[str, Any] = {"model": model}
        if revision is not None:
            target["revision"] = revision
        else:
            self.say("target.revision", "the command does not pin a model revision: add one")
        target["engine"] = self.engine
        if self.engine_version:
            target["engine_version"] = self.engine_version
        else:
            self.say(
                "target.engine_version",
                f"left out: a command line does not say the {self.engine_name} version "
                "(rules are then read for the newest release SpecPact knows)",
            )
        if modes is None:
            modes = ["greedy", "sampling"]
            self.say(
                "compatibility.decoding.modes",
                "placeholder [greedy, sampling]: decoding is chosen per request; state what the route allows",
            )
        if max_batch_size is None:
            max_batch_size = 1
            self.say(
                "compatibility.batching.max_batch_size",
                "placeholder 1: the command does not set a batch limit",
            )
        if max_concurrency is None:
            max_concurrency = max_batch_size
            self.say(
                "compatibility.max_concurrency",
                f"placeholder {max_concurrency} (the batch limit): {self.engine_name} does not cap it",
            )
        batching: dict[str, Any] = {"max_batch_size": max_batch_size}
        if speculation_off_above is not None:
            batching["speculation_off_above_batch_size"] = speculation_off_above
        self.say("lanes", "left empty: which workloads the method is approved for is the reviewer's call")
        self.say(
            "measurement",
            "left empty: add a workload per allowed lane and the standard the speedup must meet",
        )
        rollback_to = "speculation_off" if speculation.get("method", "none") != "none" else "previous"
        self.say("rollback", f"placeholder: to {rollback_to} when the gate fails; confirm the rollback plan")
        return {
            "apiVersion": "specpact/v1",
            "route": route,
            "description": f"Imported from a {self.engine_name} command line; see the unresolved fields.",
            "target": target,
            "speculation": speculation,
            "assets": assets,
            "compatibility": {
                "tokenizer": tokenizer,
                "decoding": {"modes": modes},
                "batching": batching,
                "max_concurrency": max_concurrency,
            },
            "lanes": {"allowed": [], "excluded": []},
            "measurement": {"workloads": {}, "improve": [], "non_inferiority": []},
            "rollback": {"to": rollback_to, "when": ["gate_fail"]},
        }
