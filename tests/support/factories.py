"""factory_boy factories and small builders shared by all test folders.

Versions are built from the example contracts (DESIGN §8: they must validate unchanged)
through the real document core: validate, normalize, digest."""

from __future__ import annotations

import copy
import functools
from typing import Any

import factory
import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db.models import Max
from factory.django import DjangoModelFactory

from accounts_app.models import UserRole
from accounts_app.services import IssuedToken, token_issue
from audit_app.actors import Actor
from contracts_app.document import document_digest, normalize, validate_document
from contracts_app.examples import examples_dir
from contracts_app.models import ContractVersion, Route

PASSWORD = "correct horse battery staple"


def example(name: str = "contract-summaries-ngram") -> dict[str, Any]:
    """An example contract as a dict (`name` without .yaml)."""
    with open(examples_dir() / f"{name}.yaml", encoding="utf-8") as fh:
        return dict(yaml.safe_load(fh))


def variant(doc: dict[str, Any], route: str | None = None, **changes: Any) -> dict[str, Any]:
    """A copy with dotted paths set: variant(doc, **{"speculation.num_speculative_tokens": 4})."""
    out = copy.deepcopy(doc)
    if route is not None:
        out["route"] = route
    for path, value in changes.items():
        node = out
        *parents, leaf = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return out


@functools.cache
def _password_hash(hashers: tuple[str, ...]) -> str:
    return make_password(PASSWORD)


def _hashed_password() -> str:
    """PASSWORD hashed by the first configured hasher once per process (per hasher list),
    not once per user: PBKDF2 costs about 0.2 s of CPU a hash, and every test's actors are
    users. Each user still holds a real hash any process of the project verifies (the
    gunicorn and worker ones too); only the salt is shared."""
    return _password_hash(tuple(settings.PASSWORD_HASHERS))


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.LazyFunction(_hashed_password)

    @factory.post_generation
    def role(self, create: bool, extracted: str | None, **kwargs: Any) -> None:
        if create and extracted:
            UserRole.objects.create(user=self, role=extracted)
        if create:
            self.save()


def make_user(username: str, role: str | None = None, **kwargs: Any) -> Any:
    return UserFactory(username=username, role=role, **kwargs)


def make_version(
    route: Route | str, document: dict[str, Any], *, source_format: str = "yaml"
) -> ContractVersion:
    """Store `document` as the route's next version (creating the route), like an upload
    but without the upload's audit event."""
    slug = route.slug if isinstance(route, Route) else route
    contract = validate_document(variant(document, route=slug))
    route_obj, _ = Route.objects.get_or_create(slug=slug)
    number = (route_obj.versions.aggregate(m=Max("number"))["m"] or 0) + 1
    return ContractVersion.objects.create(
        route=route_obj,
        number=number,
        digest=document_digest(contract),
        document=normalize(contract),
        source_format=source_format,
    )


def make_token(user: Any, role: str, routes: list[str] | None = None) -> IssuedToken:
    return token_issue(user=user, role=role, routes=routes or [], actor=Actor.system("system:tests"))
