"""Rows into PostgreSQL with COPY (psycopg 3 `cursor.copy`), by Django model: the columns
come from the model's own fields, so a column added with a default (or nullable) needs no
change here. A row is a dict by attribute name (`route_id`, not `route`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import psycopg
from django.db import models
from psycopg import sql

# Rows of several tables: model → its rows.
Rows = dict[type[models.Model], list[dict[str, Any]]]


class JsonText(str):
    """A JSON document already serialized (the big result payloads: serialized once, for
    their digest, and written as they are)."""

    __slots__ = ()


def _columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.local_concrete_fields]


def _value(f: models.Field[Any, Any], row: dict[str, Any]) -> Any:
    if f.attname in row:
        value = row[f.attname]
    elif f.has_default():
        value = f.get_default()
    elif f.null:
        value = None
    else:
        raise KeyError(f"{f.model.__name__}.{f.attname} has no value and no default")
    if isinstance(f, models.JSONField) and value is not None and not isinstance(value, JsonText):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, datetime) and value.tzinfo is None:
        raise ValueError(f"{f.model.__name__}.{f.attname}: naive datetime {value}")
    return value


def copy_rows(
    conn: psycopg.Connection[Any], model: type[models.Model], rows: Iterable[dict[str, Any]]
) -> int:
    """COPY the rows into the model's table; returns how many."""
    fields = _columns(model)
    columns: list[sql.Composable] = [sql.Identifier(str(f.column)) for f in fields]
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(model._meta.db_table), sql.SQL(", ").join(columns)
    )
    count = 0
    with conn.cursor() as cur, cur.copy(statement) as copy:
        for row in rows:
            copy.write_row([_value(f, row) for f in fields])
            count += 1
    return count


def reset_sequences(conn: psycopg.Connection[Any], models_: Iterable[type[models.Model]]) -> None:
    """Move each table's id sequence past the ids written, so the app's own inserts go on."""
    with conn.cursor() as cur:
        for model in models_:
            pk = model._meta.pk
            if not isinstance(pk, models.AutoField | models.BigAutoField):
                continue
            table = model._meta.db_table
            cur.execute(
                sql.SQL(
                    "SELECT setval(pg_get_serial_sequence({t}, {c}), "
                    "GREATEST((SELECT MAX({col}) FROM {tbl}), 1))"
                ).format(
                    t=sql.Literal(table),
                    c=sql.Literal(pk.column),
                    col=sql.Identifier(str(pk.column)),
                    tbl=sql.Identifier(table),
                )
            )
