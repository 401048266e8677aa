"""The engine table by release (issue 10): release numbers, which release a contract is
read for, that each release range renders only what it accepts, that a field a release
cannot express is refused with the path and the release, and that the examples keep their
meaning (digest) and render on the releases they name."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from contracts_app.document import (
    document_digest,
    parse_document,
    render,
    validate_document,
    validation_warnings,
)
from contracts_app.document.engines import KNOWLEDGE, parse_version, release_view
from contracts_app.document.engines.readme import README, current_block, generated_block
from contracts_app.document.errors import ContractError
from tests.support.documents import DRAFT, EAGLE_HEAD, EXAMPLES_DIR, base, error_at

Doc = dict[str, Any]


def test_release_numbers_compare_as_releases() -> None:
    v = parse_version
    assert v("0.24.0") < v("0.25.0") < v("0.33.0")  # type: ignore[operator]
    assert v("0.5.4") < v("0.5.4.post3") < v("0.5.5")  # type: ignore[operator]
    assert v("v0.24.0") == v("0.24.0") and v("3.3.5-rocm") == v("3.3.5")
    assert v("5") < v("5.14.0") and v("0.9.0") < v("0.10.0")  # type: ignore[operator]
    assert v("b9246", "build") == v("9246", "build") == v("9246.0.0", "build")
    assert v("b8941", "build") < v("b11434", "build")  # type: ignore[operator]
    assert v("latest") is None and v("server-cuda", "build") is None


def test_no_version_or_one_newer_than_the_table_reads_as_the_newest_and_says_so() -> None:
    doc = base()
    del doc["target"]["engine_version"]
    found = {w.path: w.message for w in validation_warnings(validate_document(doc))}
    assert "no engine version is stated: read as vLLM 0.33.0" in found["target.engine_version"]
    doc["target"]["engine_version"] = "0.99.0"
    found = {w.path: w.message for w in validation_warnings(validate_document(doc))}
    assert "newer than the releases SpecPact knows (newest 0.33.0)" in found["target.engine_version"]
    doc["target"]["engine_version"] = "0.24.0"
    assert "target.engine_version" not in {w.path for w in validation_warnings(validate_document(doc))}


def _on(engine: str, version: str, spec: Doc, assets: list[Doc] | None = None) -> Doc:
    doc = base()
    doc["target"]["engine"], doc["target"]["engine_version"] = engine, version
    doc["speculation"], doc["assets"] = spec, copy.deepcopy(assets or [])
    batch = 1 if engine == "transformers" else 16
    doc["compatibility"]["batching"] = {"max_batch_size": batch}
    doc["compatibility"]["max_concurrency"] = batch
    doc["measurement"]["improve"][0].pop("max_concurrency")
    return doc


MEDUSA = {"role": "medusa_heads", "name": "org/medusa-heads", "revision": "r1"}
MLP = {"role": "mlp_speculator", "name": "ibm-fms/llama3-8b-accelerator", "revision": "r1"}
ASSISTANT = {"role": "mtp_assistant", "name": "org/gemma-4-assistant", "revision": "r1"}
SCHEDULE = [
    {"up_to_batch_size": 4, "num_speculative_tokens": 4},
    {"up_to_batch_size": 16, "num_speculative_tokens": 0},
]
# Contracts that exercise every method and setting of the format; each range renders those it can.
CATALOGUE: list[tuple[Doc, list[Doc]]] = [
    ({"method": "ngram", "num_speculative_tokens": 4}, []),
    (
        {
            "method": "ngram",
            "num_speculative_tokens": 4,
            "params": {"prompt_lookup_min": 2, "prompt_lookup_max": 4},
        },
        [],
    ),
    ({"method": "ngram", "num_speculative_tokens": 4, "params": {"prompt_lookup_max": 3}}, []),
    *(
        (
            {
                "method": "ngram",
                "num_speculative_tokens": 8 if v == "cache" else 5,
                "params": {"ngram_variant": v, **({"prompt_lookup_max": 3} if v != "cache" else {})},
            },
            [],
        )
        for v in ("simple", "map-k", "map-k4v", "mod", "cache")
    ),
    (
        {
            "method": "ngram",
            "num_speculative_tokens": 6,
            "params": {"ngram_variant": "mod", "min_speculative_tokens": 2},
        },
        [],
    ),
    ({"method": "draft_model", "num_speculative_tokens": 4}, [DRAFT]),
    (
        {"method": "draft_model", "num_speculative_tokens": 4, "params": {"min_speculative_tokens": 1}},
        [DRAFT],
    ),
    ({"method": "draft_model", "num_speculative_tokens": 4, "params": {"parallel_drafting": True}}, [DRAFT]),
    ({"method": "draft_model", "num_speculative_tokens": 4, "params": {"token_schedule": SCHEDULE}}, [DRAFT]),
    ({"method": "eagle", "num_speculative_tokens": 3}, [EAGLE_HEAD]),
    (
        {"method": "eagle3", "num_speculative_tokens": 3, "params": {"eagle_topk": 4, "num_draft_tokens": 8}},
        [EAGLE_HEAD],
    ),
    ({"method": "eagle3", "num_speculative_tokens": 3}, [EAGLE_HEAD]),
    ({"method": "medusa", "num_speculative_tokens": 3}, [MEDUSA]),
    ({"method": "mlp_speculator", "num_speculative_tokens": 3}, [MLP]),
    ({"method": "mtp", "num_speculative_tokens": 1}, []),
    ({"method": "mtp", "num_speculative_tokens": 1}, [ASSISTANT]),
    ({"method": "suffix", "num_speculative_tokens": 16}, []),
    ({"method": "early_exit", "num_speculative_tokens": 4, "params": {"early_exit_layer": 6}}, []),
    ({"method": "none"}, []),
]
# The words of a render that are not engine options: SpecPact's own notation of generate().
_NOTATION = {
    "--model",
    "--revision",
    "--tokenizer",
    "--assistant-revision",
    "--assistant-role",
    "--mtp-layers",
}


def _ranges() -> list[tuple[str, str]]:
    out = []
    for engine, k in KNOWLEDGE.items():
        out += [(engine, str(start)) for start, _ in k.ranges() if k.view(str(start)).gap is None]
    return out


_PROGRAM_WORDS = {"vllm": 2, "sglang": 3, "tgi": 1, "llamacpp": 1, "transformers": 1, "trtllm": 2}


def _options(engine: str, argv: list[str]) -> set[str]:
    words = argv[_PROGRAM_WORDS[engine] :]
    if engine == "transformers":
        return {w.partition("=")[0] for w in words if "=" in w and not w.startswith("-")}
    return {w for w in words if w.startswith("-")}


@pytest.mark.parametrize(("engine", "start"), _ranges(), ids=lambda x: str(x))
def test_each_release_range_renders_only_what_it_accepts(engine: str, start: str) -> None:
    view = release_view(engine, start)
    accepted = view.accepted
    rendered = 0
    for spec, assets in CATALOGUE:
        try:
            doc = validate_document(_on(engine, start, copy.deepcopy(spec), assets))
        except ContractError:
            continue  # a contract this release cannot run: refused, not rendered (tested below)
        result = render(doc)
        rendered += 1
        extra = _options(engine, result.argv) - accepted - (_NOTATION if engine == "transformers" else set())
        assert not extra, f"{view.label} does not accept {extra}: {result.shell}"
        if engine == "vllm" and result.config:
            assert set(result.config) <= accepted, f"{view.label}: {set(result.config) - accepted}"
            assert result.config["method"] in view.names("method")
        if engine == "trtllm" and result.config:
            spec = result.config["speculative_config"]
            assert set(spec) <= accepted, f"{view.label}: {set(spec) - accepted}"
            assert spec["decoding_type"] in view.names("method")
            assert set(result.files) == {result.argv[-1]}, result.files  # the YAML the command names
        if engine == "llamacpp" and "--spec-type" in result.argv:
            assert result.argv[result.argv.index("--spec-type") + 1] in view.names("method")
        if engine == "sglang" and "--speculative-algorithm" in result.argv:
            assert result.argv[result.argv.index("--speculative-algorithm") + 1] in view.names("method")
    assert rendered >= 1, f"{view.label}: the catalogue renders nothing there"


CASES: list[tuple[str, Doc, str, tuple[str, ...]]] = [
    (
        "vLLM batch cut-off after V0",
        dict(
            _on("vllm", "0.11.0", {"method": "ngram", "num_speculative_tokens": 4}),
            compatibility={
                **base()["compatibility"],
                "batching": {"max_batch_size": 64, "speculation_off_above_batch_size": 8},
            },
        ),
        "compatibility.batching.speculation_off_above_batch_size",
        ("vLLM 0.11.0", "v0.10.0", "vllm-project/vllm#35060", "token_schedule"),
    ),
    (
        "vLLM token schedule before 0.24.0",
        _on(
            "vllm",
            "0.23.0",
            {"method": "draft_model", "num_speculative_tokens": 4, "params": {"token_schedule": SCHEDULE}},
            [DRAFT],
        ),
        "speculation.params.token_schedule",
        ("vLLM 0.23.0", "num_speculative_tokens_per_batch_size", "0.24.0"),
    ),
    (
        "vLLM heterogeneous vocab before 0.25.0",
        _on(
            "vllm",
            "0.24.0",
            {"method": "draft_model", "num_speculative_tokens": 4, "params": {"heterogeneous_vocab": True}},
            [dict(DRAFT, tokenizer={"name": "other/tok"})],
        ),
        "speculation.params.heterogeneous_vocab",
        ("vLLM 0.24.0", "use_heterogeneous_vocab", "0.25.0"),
    ),
    (
        "vLLM parallel drafting before 0.16.0",
        _on(
            "vllm",
            "0.15.0",
            {"method": "draft_model", "num_speculative_tokens": 4, "params": {"parallel_drafting": True}},
            [DRAFT],
        ),
        "speculation.params.parallel_drafting",
        ("vLLM 0.15.0", "0.16.0"),
    ),
    (
        "vLLM draft model on V1 before 0.15.0",
        _on("vllm", "0.12.0", {"method": "draft_model", "num_speculative_tokens": 4}, [DRAFT]),
        "speculation.method",
        ("vLLM 0.12.0", "0.15.0", "before 0.10.0"),
    ),
    (
        "vLLM medusa after 0.33.0",
        _on("vllm", "0.33.0", {"method": "medusa", "num_speculative_tokens": 3}, [MEDUSA]),
        "speculation.method",
        ("vLLM 0.33.0", "before 0.33.0"),
    ),
    (
        "vLLM generic mtp before 0.11.0",
        _on("vllm", "0.10.0", {"method": "mtp", "num_speculative_tokens": 1}),
        "speculation.method",
        ("vLLM 0.10.0", "0.11.0"),
    ),
    (
        "SGLang lookup window from 0.5.10",
        _on(
            "sglang",
            "0.5.10",
            {"method": "ngram", "num_speculative_tokens": 8, "params": {"prompt_lookup_max": 12}},
        ),
        "speculation.params.prompt_lookup_max",
        ("SGLang 0.5.10", "sgl-project/sglang#21225", "0.5.3 to before 0.5.10"),
    ),
    (
        "SGLang draft revision before 0.5.2",
        _on("sglang", "0.4.10", {"method": "eagle", "num_speculative_tokens": 3}, [EAGLE_HEAD]),
        "assets[0].revision",
        ("SGLang 0.4.10", "--speculative-draft-model-revision", "0.5.2"),
    ),
    (
        "SGLang standalone before 0.5.2",
        _on("sglang", "0.4.10", {"method": "draft_model", "num_speculative_tokens": 3}, [DRAFT]),
        "speculation.method",
        ("SGLang 0.4.10", "STANDALONE", "0.5.2"),
    ),
    (
        "TGI MLP speculators before 2.0.3",
        _on("tgi", "2.0.2", {"method": "mlp_speculator", "num_speculative_tokens": 3}, [MLP]),
        "speculation.method",
        ("TGI 2.0.2", "2.0.3"),
    ),
    (
        "TGI lookup window",
        _on(
            "tgi",
            "3.3.7",
            {"method": "ngram", "num_speculative_tokens": 3, "params": {"prompt_lookup_max": 3}},
        ),
        "speculation.params.prompt_lookup_max",
        ("--speculate",),
    ),
    (
        "llama.cpp draft-mtp before b9246",
        _on("llamacpp", "b8941", {"method": "mtp", "num_speculative_tokens": 2}),
        "speculation.method",
        ("llama.cpp b8941", "draft-mtp", "b9246"),
    ),
    (
        "llama.cpp between the spellings",
        _on("llamacpp", "b9000", {"method": "ngram", "num_speculative_tokens": 4}),
        "target.engine_version",
        ("llama.cpp b9000", "b8941", "b9246"),
    ),
    (
        "llama.cpp ngram-cache's fixed draft",
        _on(
            "llamacpp",
            "b11434",
            {"method": "ngram", "num_speculative_tokens": 4, "params": {"ngram_variant": "cache"}},
        ),
        "speculation.num_speculative_tokens",
        ("ngram-cache", "8"),
    ),
    (
        "llama.cpp one n-gram length",
        _on(
            "llamacpp",
            "b11434",
            {
                "method": "ngram",
                "num_speculative_tokens": 4,
                "params": {"prompt_lookup_min": 2, "prompt_lookup_max": 4},
            },
        ),
        "speculation.params.prompt_lookup_min",
        ("llama.cpp b11434", "must equal prompt_lookup_max"),
    ),
    (
        "Transformers early exit before 4.47.0",
        _on(
            "transformers",
            "4.46.0",
            {"method": "early_exit", "num_speculative_tokens": 4, "params": {"early_exit_layer": 4}},
        ),
        "speculation.method",
        ("Transformers 4.46.0", "assistant_early_exit", "4.47.0"),
    ),
    (
        "Transformers own MTP layers before 5.14.0",
        _on("transformers", "5.8.0", {"method": "mtp", "num_speculative_tokens": 1}),
        "speculation.method",
        ("Transformers 5.8.0", "use_mtp", "5.14.0"),
    ),
    (
        "a release older than the table",
        _on("vllm", "0.6.0", {"method": "ngram", "num_speculative_tokens": 4}),
        "target.engine_version",
        ("vLLM 0.6.0", "0.8.3", "vllm-project/vllm#15466"),
    ),
]


@pytest.mark.parametrize(("label", "doc", "path", "fragments"), CASES, ids=[c[0] for c in CASES])
def test_a_field_the_named_release_cannot_express_is_refused_with_the_path_and_the_release(
    label: str, doc: Doc, path: str, fragments: tuple[str, ...]
) -> None:
    message = error_at(copy.deepcopy(doc), path)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_the_readme_engine_sections_are_generated_from_the_table() -> None:
    text = README.read_text(encoding="utf-8")
    assert current_block(text) == generated_block(), "run: python -m contracts_app.document.engines.readme"


# Computed by the code before issue 10's additions: an additive change keeps every meaning.
EXAMPLE_DIGESTS = {
    "agent-draft-model-vllm.yaml": "sha256:0998a57779012228c51efc9424514ffdff0fb5cfe81ef07acc1190a94b0d7451",
    "contract-summaries-ngram.yaml": "sha256:f7595b24c74b3bd39c51e5a8df79f3903c97c72b11f3dc4a73840eee6b92c6e7",  # noqa: E501 (a digest)
    "doc-review-ngram-tgi.yaml": "sha256:0ec2adc3268195e6c3a3b99490e7dda67cfa24957e8aeee40112c0a04ba84ccd",
    "local-gemma-prompt-lookup.yaml": "sha256:1b0e7513ac3775d1a470a45a9b6d62513701796e1f14499441662f482129244e",  # noqa: E501 (a digest)
    "support-chat-eagle3.yaml": "sha256:0846e509c7160ec147d22948cfaa5926b621cc2cf310fad0184ae4a3fe285a8b",
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_DIGESTS))
def test_the_examples_keep_their_digest_and_render_on_the_release_they_name(name: str) -> None:
    doc = validate_document(parse_document((EXAMPLES_DIR / name).read_bytes(), "yaml"))
    assert document_digest(doc) == EXAMPLE_DIGESTS[name]
    view = release_view(doc.target.engine, doc.target.engine_version)
    assert view.assumed is None and not view.older_than_known, view.label
    result = render(doc)
    assert _options(doc.target.engine, result.argv) - view.accepted - _NOTATION == set()
    if doc.target.engine == "vllm":
        assert set(json.loads(result.argv[result.argv.index("--speculative-config") + 1])) <= view.accepted


def test_each_release_says_which_metrics_and_endpoints_the_engine_exposes() -> None:
    newest = release_view("llamacpp", None)
    assert {"/props", "/slots", "/metrics"} <= set(newest.names("endpoint"))
    assert "llamacpp:spec_decode_num_drafts_total" in newest.names("metric")
    assert "vllm:spec_decode_num_drafts_total" not in release_view("vllm", "0.8.3").names("metric")
    assert "vllm:spec_decode_num_accepted_tokens_per_pos_total" in release_view("vllm", "0.24.0").names(
        "metric"
    )
    assert "/server_info" not in release_view("sglang", "0.5.4").names("endpoint")
    assert {"/server_info", "/get_server_info"} <= set(release_view("sglang", "0.5.6").names("endpoint"))
    assert release_view("tgi", "1.3.0").names("metric") == ["tgi_request_skipped_tokens"]
    assert release_view("tgi", "1.0.0").names("metric") == []


def test_every_table_entry_cites_where_it_was_read() -> None:
    for k in KNOWLEDGE.values():
        assert all(f.source for f in k.features), k.name
        assert all(source for _, source in k.releases), k.name
