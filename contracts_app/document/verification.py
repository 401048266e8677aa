"""Rules for `speculation.verifier` and the contract's `verification` (issue 23): the
verifier must be one the named release can be told; a lossy verifier needs
`verification: lossy`; a lossy contract needs an output-quality rule the gate enforces
(`measurement.output_stability.greedy_exact_match_min`, judged on each lane's workload
against the baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from .engines import KNOWLEDGE, release_view
from .engines.verifiers import LOSSY, MEANING, SPELLINGS, Spelling
from .errors import FieldError
from .schema import ContractDocument

VERIFIER = "speculation.verifier"


def errors(doc: ContractDocument) -> list[FieldError]:
    return [*_verifier(doc), *_lossy(doc)]


def spelling_of(doc: ContractDocument) -> Spelling | None:
    """The key/flag the contract's release takes for its verifier (None for standard)."""
    verifier = doc.speculation.verifier
    if verifier in (None, "standard"):
        return None
    view = release_view(doc.target.engine, doc.target.engine_version)
    at = min(view.version, view.knowledge.newest)
    k = KNOWLEDGE[doc.target.engine]
    for s in SPELLINGS:
        if s.engine != doc.target.engine or s.verifier != verifier:
            continue
        since = k.version(s.since) if s.since else None
        until = k.version(s.until) if s.until else None
        if (since is None or since <= at) and (until is None or at < until):
            return s
    return None


def _verifier(doc: ContractDocument) -> Iterator[FieldError]:
    spec, verifier = doc.speculation, doc.speculation.verifier
    if verifier in (None, "standard"):
        return
    if spec.method == "none":
        yield FieldError(VERIFIER, "method none drafts nothing: there is nothing to verify")
        return
    k = KNOWLEDGE[doc.target.engine]
    if spelling_of(doc) is None:
        ever = [s for s in SPELLINGS if s.engine == doc.target.engine and s.verifier == verifier]
        label = release_view(doc.target.engine, doc.target.engine_version).label
        if ever:
            s = ever[0]
            yield FieldError(
                VERIFIER,
                f"{label} has no {verifier} verifier: {_word(s)} exists in {k.name} {s.since} and later "
                f"({s.source})",
            )
        else:
            yield FieldError(VERIFIER, f"{k.name} has no {verifier} verifier ({MEANING[verifier]})")
        return
    p, n = spec.params, spec.num_speculative_tokens or 0
    topk = p.eagle_topk if p and p.eagle_topk else 1
    if doc.target.engine == "sglang" and topk != 1:
        yield FieldError(
            VERIFIER, f"SGLang's {verifier} verifier needs --speculative-eagle-topk 1, not {topk}"
        )
    if verifier == "fly" and n < 2:
        yield FieldError(VERIFIER, "vLLM's FLy verifier needs num_speculative_tokens of at least 2")
    if verifier == "synthetic":
        length = p.synthetic_acceptance_length if p else None
        if length is None:
            yield FieldError(
                "speculation.params.synthetic_acceptance_length",
                "vLLM's synthetic verifier needs the mean acceptance length it simulates",
            )
        elif length > n + 1:
            yield FieldError(
                "speculation.params.synthetic_acceptance_length",
                f"must be within [1, num_speculative_tokens + 1] = [1, {n + 1}]",
            )


def _word(s: Spelling) -> str:
    return f"{s.name}={s.value}" if s.value else s.name


def _lossy(doc: ContractDocument) -> Iterator[FieldError]:
    verifier, p = doc.speculation.verifier, doc.speculation.params
    if p is not None and p.synthetic_acceptance_length is not None and verifier != "synthetic":
        yield FieldError(
            "speculation.params.synthetic_acceptance_length", "applies to speculation.verifier synthetic only"
        )
    if verifier in LOSSY and doc.verification != "lossy":
        yield FieldError(
            "verification",
            f"speculation.verifier {verifier} is lossy ({MEANING[verifier]}): the contract must say "
            "verification: lossy",
        )
    if doc.verification == "lossy" and doc.measurement.output_stability is None:
        yield FieldError(
            "measurement.output_stability",
            "a lossy contract changes outputs: it needs an output-quality rule "
            "(greedy_exact_match_min: the share of greedy outputs identical to the baseline's on each "
            "lane's workload)",
        )
    if doc.verification == "lossy" and "greedy" not in doc.compatibility.decoding.modes:
        # benchmarks_app/spec_build.py runs greedy only when the route allows it, and the gate's
        # output-stability check needs greedy outputs on both arms (gate/deterministic.py).
        yield FieldError(
            "compatibility.decoding.modes",
            "a lossy contract's output-quality rule compares greedy outputs: allow greedy decoding, "
            "or the gate can never measure it",
        )
