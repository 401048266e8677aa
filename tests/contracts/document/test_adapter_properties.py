"""Round trips on generated contracts: for any contract an engine can run, the rendered
command imports back to a contract that renders to the same argv and config."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts_app.document import SUPPORTED_METHODS, ContractError, import_command, render, validate_document
from contracts_app.document.engines import KNOWLEDGE, ReleaseView
from contracts_app.document.engines.llamacpp import NGRAM_CACHE_TOKENS
from contracts_app.document.engines.trtllm import SPECULATIVE_CONFIG
from contracts_app.document.engines.verifiers import LOSSY, SPELLINGS
from tests.support.documents import base

ASSET_ROLE = {"draft_model": "draft", "eagle": "eagle_head", "eagle3": "eagle_head", "medusa": "medusa_heads"}
ASSET_ROLE["mlp_speculator"] = "mlp_speculator"
ASSET_ROLE["dflash"] = "draft"

names = st.from_regex(r"[a-z][a-z0-9]{0,6}/[A-Za-z0-9][A-Za-z0-9.\-]{0,12}", fullmatch=True)
revisions = st.one_of(st.none(), st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True))


def releases(engine: str) -> list[str | None]:
    """The start of each release range of the engine's table (outside its gaps), and no
    version at all (the newest then holds)."""
    k = KNOWLEDGE[engine]
    return [None, *(str(start) for start, _ in k.ranges() if k.view(str(start)).gap is None)]


def expressible(view: ReleaseView, param: str, method: str, variant: str | None = None) -> bool:
    return bool(view.carriers(f"speculation.params.{param}", method, variant))


def _runs(view: ReleaseView, since: str | None) -> bool:
    first = view.knowledge.version(since) if since else None
    return first is None or first <= min(view.version, view.knowledge.newest)


@st.composite
def contracts(draw: st.DrawFn) -> dict[str, Any]:
    engine = draw(st.sampled_from(sorted(SUPPORTED_METHODS)))
    version = draw(st.sampled_from(releases(engine)))
    view = KNOWLEDGE[engine].view(version)
    methods = view.methods | {"none"}
    if engine == "transformers" and not view.has("num_assistant_tokens"):
        methods -= {"draft_model"}  # before 4.35.0 no contract can say the token count
    method = draw(st.sampled_from(sorted(methods)))
    doc = base()
    model = draw(names)
    revision = draw(revisions)
    doc["target"] = {"model": model, "engine": engine}
    if version:
        doc["target"]["engine_version"] = version
    if revision:
        doc["target"]["revision"] = revision
    tokenizer: dict[str, Any] = {"name": draw(st.sampled_from([model, "org/tok"]))}
    tok_revision = draw(revisions)
    if tok_revision:
        tokenizer["revision"] = tok_revision
    doc["compatibility"]["tokenizer"] = tokenizer
    doc["compatibility"]["decoding"] = {
        "modes": draw(st.sampled_from([["greedy"], ["sampling"], ["greedy", "sampling"]]))
    }
    batch = 1 if engine == "transformers" else draw(st.integers(1, 512))
    doc["compatibility"]["batching"] = {"max_batch_size": batch}
    doc["compatibility"]["max_concurrency"] = draw(st.integers(1, 512))
    if view.concept("speculation_off_above") is not None and method != "none" and draw(st.booleans()):
        doc["compatibility"]["batching"]["speculation_off_above_batch_size"] = draw(st.integers(2, 64))
    doc["measurement"]["improve"][0].pop("max_concurrency")
    speculation: dict[str, Any] = {"method": method}
    params: dict[str, Any] = {}
    doc["assets"] = []
    if method != "none":
        speculation["num_speculative_tokens"] = draw(st.integers(1, 16))
        variant = None
        if method == "ngram":
            if engine == "llamacpp":
                variant = draw(
                    st.sampled_from(sorted(f.variant for f in view.features("method") if f.variant))
                )
                if variant != "simple" or draw(st.booleans()):
                    params["ngram_variant"] = variant
                if variant == "cache":
                    speculation["num_speculative_tokens"] = NGRAM_CACHE_TOKENS
            low, high = sorted(draw(st.lists(st.integers(1, 8), min_size=2, max_size=2)))
            if expressible(view, "prompt_lookup_min", method, variant) and draw(st.booleans()):
                params["prompt_lookup_min"] = low
            if expressible(view, "prompt_lookup_max", method, variant) and draw(st.booleans()):
                params["prompt_lookup_max"] = high
        if engine == "llamacpp" and view.concept("spec_type_list") is not None and draw(st.booleans()):
            # A stacked --spec-type list: n-gram types after the method's own (#22838).
            own = f"ngram-{variant}" if method == "ngram" else None
            pool = sorted(f.name for f in view.features("method") if f.method == "ngram" and f.name != own)
            params["fallback_types"] = draw(
                st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True)
            )
        if method == "early_exit":
            params["early_exit_layer"] = draw(st.integers(1, 30))
        if engine == "sglang" and method in ("eagle", "eagle3", "mtp", "draft_model") and draw(st.booleans()):
            params["eagle_topk"] = draw(st.integers(1, 8))
            params["num_draft_tokens"] = draw(st.integers(2, 64))
        parallel = expressible(view, "parallel_drafting", method) and method in (
            "draft_model",
            "eagle",
            "eagle3",
        )
        if parallel and draw(st.booleans()):
            params["parallel_drafting"] = True
        verifiers = [s.verifier for s in SPELLINGS if s.engine == engine and _runs(view, s.since)]
        if verifiers and draw(st.booleans()):
            verifier = draw(st.sampled_from(verifiers))
            speculation["verifier"] = verifier
            params.pop("eagle_topk", None)  # SGLang's verifiers need topk 1
            params.pop("num_draft_tokens", None)
            if verifier == "fly":
                speculation["num_speculative_tokens"] = max(2, speculation["num_speculative_tokens"])
            if verifier == "synthetic":
                params["synthetic_acceptance_length"] = 1.5
            if verifier in LOSSY:
                doc["verification"] = "lossy"
                doc["measurement"]["output_stability"] = {"greedy_exact_match_min": 0.5}
                doc["compatibility"]["decoding"] = {"modes": ["greedy", "sampling"]}  # the rule needs greedy
        role = ASSET_ROLE.get(method)
        if method == "dspark" and (engine != "vllm" or draw(st.booleans())):
            role = "draft"  # on vLLM DSpark's drafter may ship in the target's checkpoint
        if method == "mtp" and view.carriers("assets.mtp_assistant", "mtp") and draw(st.booleans()):
            role = "mtp_assistant"
        if engine == "transformers" and method == "mtp" and view.concept("mtp_own_layers") is None:
            role = "mtp_assistant"  # before 5.14.0 generate() runs MTP only from an assistant
        if role:
            asset: dict[str, Any] = {"role": role, "name": draw(names)}
            asset_revision = draw(revisions)
            if asset_revision and (engine != "sglang" or view.has("--speculative-draft-model-revision")):
                asset["revision"] = asset_revision
            if role == "draft":
                hetero = expressible(view, "heterogeneous_vocab", method) and draw(st.booleans())
                asset["tokenizer"] = {"name": "other/vocab"} if hetero else copy.deepcopy(tokenizer)
                if hetero:
                    params["heterogeneous_vocab"] = True
            doc["assets"] = [asset]
    if params:
        speculation["params"] = params
    doc["speculation"] = speculation
    return doc


def rendered_words(
    engine: str, argv: list[str], config: dict[str, Any], files: dict[str, str] | None
) -> set[str]:
    """The engine's own words a render uses, to check against the release's table: the
    flags of the command line; vLLM's --speculative-config keys; TensorRT-LLM's YAML keys
    (top level and under speculative_config, as written to the file); the generate()
    keyword arguments of a Transformers render (its --model / --tokenizer are SpecPact's
    wrapper, not the engine's)."""
    if engine == "transformers":
        return {w.split("=", 1)[0] for w in argv if "=" in w and not w.startswith("-")} | set(config)
    options = argv[3:] if engine == "sglang" else argv[1:]  # after `python -m sglang.launch_server`
    words = {w for w in options if w.startswith("-")}
    if engine == "vllm":
        words |= set(config)
    if engine == "trtllm":
        for text in (files or {}).values():
            data = yaml.safe_load(text) or {}
            # speculative_config itself is the container the table is read under (engines/trtllm.py)
            words |= (set(data) - {SPECULATIVE_CONFIG}) | set(data.get(SPECULATIVE_CONFIG) or {})
    return words


def test_the_word_check_sees_what_a_release_lacks() -> None:
    """The check above can fail: a 1.2.1 TensorRT-LLM view lacks --config and a key of 1.3.0."""
    view = KNOWLEDGE["trtllm"].view("1.2.1")
    files = {"s.yaml": "speculative_config:\n  decoding_type: DFlash\n  acceptance_rate_threshold: 0.5\n"}
    words = rendered_words("trtllm", ["trtllm-serve", "m", "--config", "s.yaml"], {}, files)
    assert words - view.accepted == {"--config", "acceptance_rate_threshold"}
    assert rendered_words(
        "transformers", ["transformers-generate", "--model", "m", "use_mtp=True"], {}, None
    ) == {"use_mtp"}
    assert "use_mtp" not in KNOWLEDGE["transformers"].view("4.46.0").accepted


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=contracts())
def test_any_runnable_contract_round_trips(data: dict[str, Any]) -> None:
    try:
        doc = validate_document(data)
    except ContractError as exc:  # the generator only builds valid contracts: show why not
        raise AssertionError([(e.path, e.message) for e in exc.errors]) from exc
    engine = doc.target.engine
    first = render(doc)
    # Each render uses only the flags and keys its release accepts (issue 23).
    view = KNOWLEDGE[engine].view(doc.target.engine_version)
    words = rendered_words(engine, first.argv, first.config, first.files)
    assert words <= view.accepted, (words - view.accepted, first.argv, first.files)
    # A command that names a config file (TensorRT-LLM's YAML) imports with that file.
    imported = import_command(
        engine, first.argv, engine_version=doc.target.engine_version, files=first.files or None
    )
    if imported.document.get("verification") == "lossy":
        # The import asks for the output-quality rule a command line cannot say: add it.
        assert any(u.path == "verification" for u in imported.unresolved)
        imported.document["measurement"]["output_stability"] = data["measurement"]["output_stability"]
    try:
        reread = validate_document(imported.document)
    except ContractError as exc:
        raise AssertionError([(e.path, e.message) for e in exc.errors]) from exc
    again = render(reread, engine)
    assert again.argv == first.argv
    assert again.config == first.config
