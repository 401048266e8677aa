"""Every speculation flag, config key, environment variable and method of each engine's
newest release, fed to import: it lands in the contract (a contract field, an engine knob
in speculation.params.engine, a variable in speculation.env) or is listed in `unresolved`
by name: not part of a contract, or a speculation setting the format cannot hold, left out
for review. None is dropped silently (issue 10), and no knob refuses the whole command
(issue 23); methods the format does not hold still are refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from contracts_app.document import ContractError, import_command
from contracts_app.document.engines import KNOWLEDGE, Feature, release_view
from contracts_app.document.engines.params import Param, by_spelling
from contracts_app.document.engines.verifiers import by_word

# Serving words every command has: their import is the adapters' own tests'.
_IDENTITY = ("target.", "compatibility.")


def _words(engine: str) -> list[Feature]:
    view = release_view(engine, None)
    return [
        f
        for f in view.features()
        if f.kind in ("flag", "key", "env")
        and not (f.field or "").startswith(_IDENTITY)
        and f.field != "speculation.method"  # the method words: the test below
        # (spec_type_list: the types after the first; test_llamacpp_fallback_types.py)
        and f.concept not in ("config", "config_new", "config_short", "spec_type", "spec_type_list")
    ]


def _knob(engine: str, f: Feature) -> Param | None:
    return by_spelling(engine, f.name, env=f.kind == "env")


def _knob_value(p: Param) -> Any:
    """A valid value of the knob, as the command line spells it."""
    if p.bare:
        return None
    return {
        "choice": p.choices[-1] if p.choices else "x",
        "int": str(int(p.minimum or 0) + 2),
        "float": "0.5",
        "bool": "1" if p.kind == "env" else "true",
        "str": "x",
    }[p.type]


def _value(f: Feature, engine: str = "") -> Any:
    """A value the engine would read differently from its default (for a knob: a valid one)."""
    knob = _knob(engine, f) if engine else None
    if knob is not None:
        raw = _knob_value(knob)
        return (
            json.loads(raw) if f.kind == "key" and raw not in (None, "x") and knob.type != "choice" else raw
        )
    samples: dict[str, Any] = {
        "speculation.num_speculative_tokens": 7,
        "speculation.params.prompt_lookup_max": 5,
        "speculation.params.prompt_lookup_min": 2,
        "speculation.params.min_speculative_tokens": 2,
        "speculation.params.eagle_topk": 4,
        "speculation.params.num_draft_tokens": 9,
        "speculation.params.early_exit_layer": 6,
        "speculation.params.token_schedule": [[1, 4, 7], [5, 8, 0]],
        "speculation.params.heterogeneous_vocab": True,
        "speculation.params.parallel_drafting": True,
        "speculation.params.synthetic_acceptance_length": 2.5,
        "assets.name": "org/helper",
        "assets.mtp_assistant": "org/helper",
        "assets.revision": "abc1234",
        "speculation.acceptance_cutoff.window": 64,
        "speculation.acceptance_cutoff.min_rate": 0.25,
    }
    if f.field in samples:
        return samples[f.field]
    if f.default is not None:
        d = f.default.lower()
        if d in ("false", "true"):
            return d != "true"
        try:
            return int(d) + 1
        except ValueError:
            try:
                return float(d) + 0.5
            except ValueError:
                return "other"
    return "x" if f.takes_value else None


def _method(engine: str, f: Feature) -> tuple[str, str | None]:
    """(contract method, llama.cpp variant) a word belongs to."""
    if f.method:
        return f.method, f.variant
    if f.only:
        return f.only[0], None
    return {"vllm": "draft_model", "sglang": "eagle", "tgi": "ngram", "llamacpp": "draft_model"}.get(
        engine, "draft_model"
    ), None


def _trtllm(spec: dict[str, Any], extra: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """trtllm-serve reads speculation from the YAML it names: the command and that file."""
    files = {"spec.yaml": yaml.safe_dump({"speculative_config": spec})}
    return ["trtllm-serve", "org/target", "--config", "spec.yaml", *(extra or [])], files


def _import(engine: str, command: Any) -> Any:
    if engine == "trtllm":
        argv, files = command
        return import_command(engine, argv, files=files)
    return import_command(engine, command)


def _command(engine: str, f: Feature) -> Any:
    method, variant = _method(engine, f)
    value = _value(f, engine)
    if engine == "trtllm":
        kind = {"ngram": "NGram", "mtp": "MTP", "eagle3": "Eagle3", "suffix": "SA"}.get(method, "DraftTarget")
        spec: dict[str, Any] = {"decoding_type": kind, "max_draft_len": 4}
        if kind in ("DraftTarget", "Eagle3"):
            spec["speculative_model"] = "org/draft"
        if f.kind == "key":
            spec[f.name] = {4: 7, 8: 0} if f.name == "draft_len_schedule" else value
        if f.name == "num_nextn_predict_layers":  # read as max_draft_len only when that is absent
            spec.pop("max_draft_len")
        if f.name.startswith("acceptance_rate_"):  # the engine's switch-off takes both
            spec.setdefault("acceptance_rate_window_size", 64)
            spec.setdefault("acceptance_rate_threshold", 0.25)
        flag = [f.name] + ([] if value is None else [str(value)]) if f.kind == "flag" else []
        return _trtllm(spec, flag)
    if engine == "vllm":
        config: dict[str, Any] = {"method": method, "num_speculative_tokens": 4}
        if method not in ("ngram", "suffix", "mtp"):
            config["model"] = "org/draft"
        argv = ["vllm", "serve", "org/target"]
        if f.kind == "key":
            config[f.name] = value
        argv += ["--speculative-config", json.dumps(config)]
        if f.kind == "flag":
            argv += [f.name] + ([] if value is None else [str(value)])
        if f.kind == "env":
            argv = [f"{f.name}={value}", *argv]
        return argv
    if engine == "sglang":
        algo = {
            "eagle": ["EAGLE", "--speculative-draft-model-path", "org/head"],
            "ngram": ["NGRAM"],
            "mtp": ["NEXTN"],
            "dspark": ["DSPARK"],
        }[method if method in ("eagle", "ngram", "mtp", "dspark") else "eagle"]
        argv = [
            "python",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "org/target",
            "--speculative-algorithm",
            *algo,
        ]
        word = [f.name] + ([] if value is None else [str(value)])
        return [f"{f.name}={value}", *argv] if f.kind == "env" else [*argv, *word]
    if engine == "tgi":
        argv = ["text-generation-launcher", "--model-id", "org/target"]
        return [*argv, f.name] + ([] if value is None else [str(value)])
    if engine == "llamacpp":
        kind = (
            f"ngram-{variant or 'simple'}"
            if method == "ngram"
            else {"mtp": "draft-mtp", "eagle3": "draft-eagle3"}.get(method, "draft-simple")
        )
        argv = ["llama-server", "-m", "target.gguf", "--spec-type", kind]
        if method != "ngram" and f.field not in ("assets.name", "assets.mtp_assistant"):
            argv += ["-md", "draft.gguf"]
        word = [f.name] + ([] if value is None else [str(value)])
        return [f"{f.env}={value}", *argv] if f.kind == "env" else [*argv, *word]
    if f.field == "assets.mtp_assistant":
        return [
            "transformers-generate",
            "--model",
            "org/target",
            "--assistant-role",
            "mtp_assistant",
            f"{f.name}={value}",
        ]
    kwargs = {
        "ngram": "prompt_lookup_num_tokens=4",
        "early_exit": "assistant_early_exit=3",
        "mtp": "use_mtp=True",
    }.get(method, "assistant_model=org/draft")
    return ["transformers-generate", "--model", "org/target", kwargs, f"{f.name}={value}"]


def _landed(doc: dict[str, Any], f: Feature, value: Any) -> bool:
    spec, params = doc["speculation"], doc["speculation"].get("params", {})
    path = f.field or ""
    if path == "speculation.num_speculative_tokens":
        return spec.get("num_speculative_tokens") == value
    if path.startswith("speculation.params."):
        got = params.get(path.rsplit(".", 1)[1])
        if path.endswith("token_schedule"):
            return got == [
                {"up_to_batch_size": 4, "num_speculative_tokens": 7},
                {"up_to_batch_size": 8, "num_speculative_tokens": 0},
            ]
        if path.endswith("heterogeneous_vocab") and f.name == "assistant_tokenizer":
            return got is True
        return got == value
    if path.startswith("speculation.acceptance_cutoff."):
        return spec.get("acceptance_cutoff", {}).get(path.rsplit(".", 1)[1]) == value
    if path in ("assets.name", "assets.mtp_assistant"):
        return any(a["name"] == value for a in doc["assets"])
    if path == "assets.revision":
        return any(a.get("revision") == value for a in doc["assets"])
    if path == "speculation.method":
        return spec["method"] != "none"
    if path == "speculation.verifier":  # engines/verifiers.py: the flag names the verifier
        spelling = by_word(doc["target"]["engine"], f.name)
        return spelling is not None and spec.get("verifier") == spelling.verifier
    return False


CASES = [(engine, f) for engine in KNOWLEDGE for f in _words(engine)]


@pytest.mark.parametrize(("engine", "feature"), CASES, ids=[f"{e}:{f.kind}:{f.name}" for e, f in CASES])
def test_every_speculation_word_of_the_newest_release_is_taken_or_listed(
    engine: str, feature: Feature
) -> None:
    command = _command(engine, feature)
    spelled = feature.env if feature.kind == "env" and feature.env else feature.name
    result = _import(engine, command)
    knob = _knob(engine, feature)
    if knob is not None:
        spec = result.document["speculation"]
        got = spec.get("env", {}) if knob.kind == "env" else spec.get("params", {}).get("engine", {})
        assert knob.name in got, (command, spec, [e.message for e in result.unresolved])
        return
    if feature.role == "refused":
        # A knob the contract cannot carry is an unresolved line naming it, not a refusal of
        # the whole import (issue 23 point 2).
        listed = [e.message for e in result.unresolved if spelled in e.message]
        assert any("left out" in m for m in listed), (command, [e.message for e in result.unresolved])
        return
    if feature.role == "contract":
        assert _landed(result.document, feature, _value(feature, engine)), (
            command,
            result.document["speculation"],
        )
    else:
        listed = [e.message for e in result.unresolved if spelled in e.message]
        assert any("not part of a contract" in m for m in listed), (
            command,
            [e.message for e in result.unresolved],
        )


METHODS = [(engine, f) for engine in KNOWLEDGE for f in release_view(engine, None).features("method")]


def _method_command(engine: str, f: Feature) -> Any:
    if engine == "trtllm":
        return _trtllm({"decoding_type": f.name, "max_draft_len": 2, "speculative_model": "org/helper"})
    if engine == "vllm":
        config = {"method": f.name, "num_speculative_tokens": 2, "model": "org/helper"}
        return ["vllm", "serve", "org/target", "--speculative-config", json.dumps(config)]
    if engine == "sglang":
        return [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "org/target",
            "--speculative-algorithm",
            f.name,
            "--speculative-draft-model-path",
            "org/helper",
            "--speculative-num-steps",
            "2",
            "--speculative-num-draft-tokens",
            "3",
        ]
    if engine == "tgi":
        return [
            "text-generation-launcher",
            "--model-id",
            "org/target-medusa"
            if f.method == "medusa"
            else "ibm-fms/target-accelerator"
            if f.method == "mlp_speculator"
            else "org/target",
            "--speculate",
            "2",
        ]
    if engine == "llamacpp":
        return [
            "llama-server",
            "-m",
            "t.gguf",
            "--spec-type",
            f.name,
            "-md",
            "d.gguf",
            "--spec-draft-n-max",
            "2",
        ]
    head = "transformers-generate --model org/t "
    if f.name == "assistant_model" and f.method != "mtp":
        return head + "assistant_model=org/a num_assistant_tokens=2"
    return (
        head
        + {
            "assistant_model": "--assistant-role mtp_assistant assistant_model=org/a",
            "prompt_lookup_num_tokens": "prompt_lookup_num_tokens=2",
            "assistant_early_exit": "assistant_early_exit=3 num_assistant_tokens=2",
            "speculation_type": "assistant_model=org/a speculation_type=dflash",
        }[f.name]
    )


@pytest.mark.parametrize(("engine", "feature"), METHODS, ids=[f"{e}:{f.name}:{f.method}" for e, f in METHODS])
def test_every_method_of_the_newest_release_imports_or_is_refused_by_name(
    engine: str, feature: Feature
) -> None:
    command = _method_command(engine, feature)
    if feature.method is None and feature.role == "refused":
        with pytest.raises(ContractError) as info:
            _import(engine, command)
        assert any(feature.name in e.message for e in info.value.errors)
        return
    if feature.method is None:
        return  # llama.cpp's `none`: no speculation, nothing to land
    doc = _import(engine, command).document
    assert doc["speculation"]["method"] == feature.method, (command, doc["speculation"])
