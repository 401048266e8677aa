"""`kernel.fixed_read.FixedRead`: the queryset's own rows (instances with what they
select_related, only() and annotations; tuples; flat values; JSON and datetimes as the ORM
converts them), compiled once, and refused when its SQL would depend on its values."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.db.models import F, QuerySet
from django.test.utils import CaptureQueriesContext

from contracts_app.models import ContractVersion, Route
from kernel.fixed_read import FixedRead, NotFixed
from tests.support.factories import example, make_version, variant
from tests.support.sqlite_shell import sqlite_shell

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions() -> list[ContractVersion]:
    made = [make_version("contract-summaries", variant(example(), description=f"v{n}")) for n in range(3)]
    made.append(make_version("other-route", example()))
    return made


def _versions_of(route_id: int) -> QuerySet[ContractVersion]:
    return (
        ContractVersion.objects.filter(route_id=route_id)
        .select_related("route")
        .only("number", "document", "created_at", "route__slug")
        .annotate(next_number=F("number") + 1)
        .order_by("-number")
    )


def test_instances_are_the_querysets_own(versions: list[ContractVersion]) -> None:
    read = FixedRead(_versions_of, route_id=int)
    for route_id in {v.route_id for v in versions}:
        expected = list(_versions_of(route_id))
        got = read(route_id=route_id)
        assert [(v.pk, v.number, v.document, v.created_at, v.next_number) for v in got] == [
            (v.pk, v.number, v.document, v.created_at, v.next_number) for v in expected
        ]
        assert [v.route.slug for v in got] == [v.route.slug for v in expected]
        assert got[0].get_deferred_fields() == expected[0].get_deferred_fields()


def test_tuples_and_flat_values_with_a_datetime_argument(versions: list[ContractVersion]) -> None:
    def since(slug: str, moment: datetime) -> QuerySet[Any]:
        return (
            ContractVersion.objects.filter(route__slug=slug, created_at__gte=moment)
            .values_list("number", "document", "created_at")
            .order_by("number")
        )

    def numbers(slug: str) -> QuerySet[Any]:
        return (
            ContractVersion.objects.filter(route__slug=slug)
            .values_list("number", flat=True)
            .order_by("number")
        )

    rows = FixedRead(since, slug=str, moment=datetime)
    early = versions[0].created_at - timedelta(days=1)
    assert rows(slug="contract-summaries", moment=early) == list(since("contract-summaries", early))
    assert rows(slug="contract-summaries", moment=early)[0][1] == versions[0].document  # JSON decoded
    assert rows(slug="contract-summaries", moment=versions[2].created_at + timedelta(days=1)) == []
    assert FixedRead(numbers, slug=str)(slug="contract-summaries") == [1, 2, 3]
    assert FixedRead(numbers, slug=str)(slug="nothing-here") == []


def test_it_is_built_and_compiled_once_and_each_call_is_one_query(versions: list[ContractVersion]) -> None:
    builds = []

    def counted(route_id: int) -> QuerySet[ContractVersion]:
        builds.append(route_id)
        return _versions_of(route_id)

    read = FixedRead(counted, route_id=int)
    read(route_id=versions[0].route_id)
    compiled = len(builds)
    with CaptureQueriesContext(connection) as queries:
        for version in versions:
            read(route_id=version.route_id)
    assert len(builds) == compiled == 2  # twice, with two sets of stand-ins, then never
    assert len(queries) == len(versions)


@pytest.mark.parametrize(
    ("build", "why"),
    [
        (lambda slug: Route.objects.filter(slug__icontains=slug).values_list("pk"), "made from a value"),
        (lambda n: Route.objects.values_list("pk")[:n], "changes with its values"),
        (lambda slug: Route.objects.filter(pk__in=[1, 2]).values_list("pk"), "never reach"),
        (lambda slug: Route.objects.filter(slug=slug).values("pk"), "instances or values_list"),
        (lambda slug: Route.objects.filter(slug=slug).prefetch_related("versions"), "prefetch"),
    ],
    ids=["icontains", "limit", "unused", "values", "prefetch"],
)
def test_a_read_whose_sql_depends_on_its_values_is_refused(build: Any, why: str) -> None:
    kind = int if "n" in build.__code__.co_varnames else str
    name = build.__code__.co_varnames[0]
    with pytest.raises(NotFixed, match=why):
        FixedRead(build, **{name: kind})(**{name: kind()})


def test_it_takes_exactly_its_arguments(versions: list[ContractVersion]) -> None:
    read = FixedRead(_versions_of, route_id=int)
    with pytest.raises(TypeError, match="route_id"):
        read(route=1)


@pytest.mark.integration
def test_it_reads_the_same_on_sqlite(tmp_path: Path) -> None:
    out = sqlite_shell(
        tmp_path,
        """
import json
from datetime import timedelta
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from django.db import connection
from contracts_app.models import ContractVersion
from kernel.fixed_read import FixedRead
from tests.support.factories import example, make_version, variant
made = [make_version("contract-summaries", variant(example(), description=f"v{n}")) for n in range(2)]
versions = ContractVersion.objects.select_related("route").order_by("pk")
since = lambda moment: versions.filter(created_at__gte=moment)
moment = made[1].created_at - timedelta(microseconds=1)
got = FixedRead(since, moment=type(moment))(moment=moment)
print(json.dumps({
    "vendor": connection.vendor,
    "got": [(v.pk, v.route.slug, v.document == made[1].document) for v in got],
    "expected": [(v.pk, v.route.slug, True) for v in since(moment)],
}))
""",
    )
    assert out["vendor"] == "sqlite"
    assert out["got"] == out["expected"] and len(out["got"]) == 1
