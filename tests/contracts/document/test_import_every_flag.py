"""Every speculation flag, config key, environment variable and method of each engine's
newest release, fed to import: it lands in the contract, is refused by name, or is listed
as not part of a contract. None is dropped silently (issue 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts_app.document import ContractError, import_command
from contracts_app.document.engines import KNOWLEDGE, Feature, release_view
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
        and f.concept not in ("config", "config_short", "spec_type")
    ]


def _value(f: Feature) -> Any:
    """A value the engine would read differently from its default."""
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


def _command(engine: str, f: Feature) -> str | list[str]:
    method, variant = _method(engine, f)
    value = _value(f)
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
def test_every_speculation_word_of_the_newest_release_is_taken_listed_or_refused(
    engine: str, feature: Feature
) -> None:
    command = _command(engine, feature)
    spelled = feature.env if feature.kind == "env" and feature.env else feature.name
    if feature.role == "refused":
        with pytest.raises(ContractError) as info:
            import_command(engine, command)
        assert any(spelled in e.message for e in info.value.errors), [e.message for e in info.value.errors]
        return
    result = import_command(engine, command)
    if feature.role == "contract":
        assert _landed(result.document, feature, _value(feature)), (command, result.document["speculation"])
    else:
        listed = [e.message for e in result.unresolved if spelled in e.message]
        assert any("not part of a contract" in m for m in listed), (
            command,
            [e.message for e in result.unresolved],
        )


METHODS = [(engine, f) for engine in KNOWLEDGE for f in release_view(engine, None).features("method")]


def _method_command(engine: str, f: Feature) -> list[str] | str:
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
            import_command(engine, command)
        assert any(feature.name in e.message for e in info.value.errors)
        return
    if feature.method is None:
        return  # llama.cpp's `none`: no speculation, nothing to land
    doc = import_command(engine, command).document
    assert doc["speculation"]["method"] == feature.method, (command, doc["speculation"])
