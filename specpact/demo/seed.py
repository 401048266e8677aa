"""The embedded demo's data, made through the same services the API uses: three people
(an admin, an operator who proposes, an approver), the example routes with an active
version each, and one release on `local-extraction` that a local CPU worker benchmarks for
real (Gemma 3 270M, prompt lookup vs. speculation off).

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
