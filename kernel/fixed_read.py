"""Reads whose SQL never changes shape, built and compiled by the ORM once per process.

A page's queries are the same every request but for a few values (a route's id, a cursor,
a user's routes). Building the queryset, resolving it and compiling it to SQL cost 0.5-1.4
ms of Python per query (issue 26, point 1: a page of seven to fifteen queries spent most of
its CPU there, the floor makes one); executing the compiled text costs ~0.2 ms. So a
`FixedRead` is written as an ordinary queryset, compiled the first time it is
called, and from then on only its values are bound — same SQL, same converters, on every
backend (the demo's SQLite compiles its own text).

It refuses, when first compiled, any read whose SQL would depend on its values: it compiles
the queryset twice with two different sets of stand-in values and requires the same text
and every parameter to be either a constant or exactly one stand-in, so a LIMIT written
into the text, an `__in` list, or `icontains` wrapping a value in `%` fails loudly instead
of being frozen with the first request's value."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import (
    FlatValuesListIterable,
    ModelIterable,
    ValuesListIterable,
    get_related_populators,
)

# A value's kind, for the stand-ins the read is compiled with.
Kind = type[int] | type[str] | type[datetime]
# Per parameter: (argument name, None, adapt as a datetime?) or (None, the constant, False).
_Bind = tuple[str | None, Any, bool]


class NotFixed(TypeError):
    """The queryset's SQL depends on a value: it cannot be compiled once."""


class _Compiled:
    __slots__ = ("binds", "converters", "models", "shape", "sql")

    def __init__(
        self, sql: str, binds: list[_Bind], converters: Any, shape: Any, models: _Models | None
    ) -> None:
        self.sql = sql
        self.binds = binds
        self.converters = converters
        self.shape = shape  # the queryset's iterable class: tuples, values or instances
        self.models = models


class _Models:
    """What `ModelIterable` works out from the compiler before its first row, kept."""

    __slots__ = ("annotations", "end", "init_list", "model", "populators", "start")

    def __init__(self, compiler: Any, alias: str) -> None:
        klass_info = compiler.klass_info
        self.model = klass_info["model"]
        self.start, self.end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        self.init_list = [column[0].target.attname for column in compiler.select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, compiler.select, alias)  # type: ignore[call-arg]  # stubs are 6.0's
        self.annotations = compiler.annotation_col_map or {}

    def instances(self, rows: Sequence[Sequence[Any]], alias: str) -> list[Any]:
        out = []
        for row in rows:
            instance = self.model.from_db(alias, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, instance)
            for name, position in self.annotations.items():
                setattr(instance, name, row[position])
            out.append(instance)
        return out


def _stand_in(kind: Kind, salt: int, index: int) -> Any:
    if kind is int:
        return 1_900_000_000 + salt * 1_000 + index  # within int4: ids compare with any column
    if kind is str:
        return f"fixed-read {salt}.{index}"
    if kind is datetime:
        return datetime(1901 + salt, 1, 1, tzinfo=UTC) + timedelta(minutes=index)
    raise NotFixed(f"no stand-in for a {kind!r} value: use int, str or datetime")


class FixedRead:
    """`FixedRead(build, route_id=int)(route_id=7)`: `list(build(route_id=7))` — model
    instances (with their `select_related`, `only` and annotations) or `values_list`
    tuples (values with `flat=True`)."""

    def __init__(self, build: Callable[..., QuerySet[Any]], **kinds: Kind) -> None:
        self._build = build
        self._kinds = kinds
        self._compiled: dict[str, _Compiled] = {}  # per database alias
        self._lock = threading.Lock()

    def __call__(self, **values: Any) -> list[Any]:
        if values.keys() != self._kinds.keys():
            raise TypeError(f"{self._build.__name__} takes {sorted(self._kinds)}, got {sorted(values)}")
        compiled, alias = self._compiled_for()
        connection = connections[alias]
        params = [
            constant if name is None else _adapted(values[name], connection) if adapt else values[name]
            for name, constant, adapt in compiled.binds
        ]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows: Sequence[Any] = cursor.fetchall()
        if compiled.converters:
            rows = [_converted(row, compiled.converters, connection) for row in rows]
        if compiled.models is not None:
            return compiled.models.instances(rows, alias)
        if compiled.shape is FlatValuesListIterable:
            return [row[0] for row in rows]
        return [tuple(row) for row in rows]

    def _compiled_for(self) -> tuple[_Compiled, str]:
        alias = "default"
        compiled = self._compiled.get(alias)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(alias) or self._compile(alias)
                self._compiled[alias] = compiled
        return compiled, alias

    def _compile(self, alias: str) -> _Compiled:
        names = list(self._kinds)
        first = {name: _stand_in(self._kinds[name], 1, i) for i, name in enumerate(names)}
        second = {name: _stand_in(self._kinds[name], 2, i) for i, name in enumerate(names)}
        queryset: Any = self._build(**first)  # Any: the private attributes read below
        shape = queryset._iterable_class
        if shape not in (ModelIterable, ValuesListIterable, FlatValuesListIterable):
            raise NotFixed(f"{self._build.__name__}: instances or values_list only, not {shape.__name__}")
        if queryset._prefetch_related_lookups or queryset._known_related_objects:
            raise NotFixed(f"{self._build.__name__}: a prefetch is more queries, not one fixed one")
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        again, params_again = self._build(**second).query.get_compiler(using=alias).as_sql()
        if again != sql or len(params) != len(params_again):
            raise NotFixed(f"{self._build.__name__}: its SQL changes with its values")
        connection = connections[alias]
        binds = [_bind(a, b, first, second, connection) for a, b in zip(params, params_again, strict=True)]
        bound = {name for name, _, _ in binds if name is not None}
        if bound != set(names):
            raise NotFixed(f"{self._build.__name__}: {sorted(set(names) - bound)} never reach its SQL as-is")
        fields = [column[0] for column in compiler.select[: compiler.col_count]]
        converters = compiler.get_converters(fields)
        models = _Models(compiler, alias) if shape is ModelIterable else None
        return _Compiled(sql, binds, converters, shape, models)


def _bind(a: Any, b: Any, first: dict[str, Any], second: dict[str, Any], connection: Any) -> _Bind:
    """Which argument parameter `a` (compiled from `first`; `b` from `second`) is, or its constant."""
    if a == b:
        return None, a, False
    for name, value in first.items():
        if type(a) is type(value) and a == value and b == second[name]:
            return name, None, False
        if isinstance(value, datetime) and (a, b) == (
            _adapted(value, connection),
            _adapted(second[name], connection),
        ):
            return name, None, True  # SQLite keeps datetimes as text: bind them the same way
    raise NotFixed(f"a parameter is made from a value, not the value itself ({a!r}): not fixed")


def _adapted(moment: datetime, connection: Any) -> Any:
    return connection.ops.adapt_datetimefield_value(moment)


def _converted(row: Sequence[Any], converters: dict[int, Any], connection: Any) -> list[Any]:
    """What the compiler's `apply_converters` does to one row."""
    values = list(row)
    for position, (functions, expression) in converters.items():
        value = values[position]
        for function in functions:
            value = function(value, expression, connection)
        values[position] = value
    return values
