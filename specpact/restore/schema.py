"""What a restore can get wrong in the schema, whatever the rows: migrations not applied
(or applied by newer code), sequences behind their tables' ids, constraints or indexes
that `pg_restore` failed to create (it goes on after an error unless `--exit-on-error`),
and the triggers that keep the audit trail, contract versions and workloads append-only."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import ForeignKey, Model

from specpact.apps_list import PROJECT_APPS
from specpact.restore.findings import Checked

# The triggers the migrations create (RunSQL: audit_app 0002/0003, contracts_app 0002,
# workloads_app 0002), by table. tests/restore holds this list to what a migrated
# database has, so a new trigger that is not named here fails a test.
APPEND_ONLY_TRIGGERS: dict[str, tuple[str, ...]] = {
    "audit_app_auditevent": ("audit_event_append_only", "audit_event_no_truncate"),
    "audit_app_auditcheckpoint": ("audit_checkpoint_append_only", "audit_checkpoint_no_truncate"),
    "contracts_app_contractversion": ("contract_version_immutable",),
    "workloads_app_workloadversion": ("workload_version_immutable",),
    "workloads_app_workloaduse": ("workload_use_immutable",),
    "workloads_app_workloaduploader": ("workload_uploader_immutable",),
    "workloads_app_workloadcontent": ("workload_content_immutable",),
}
# Tables whose rows carry a fixed id and never draw from their sequence: the audit chain's
# mark is one row, pk audit_app.marks.MARK_PK, written with update_or_create.
_FIXED_ID_TABLES = {"audit_app_auditchainmark"}
# pg_trigger.tgenabled: O fires in origin and local mode, A always; D is disabled and
# R fires only with session_replication_role = replica, i.e. not for the application.
# https://www.postgresql.org/docs/15/catalog-pg-trigger.html
_FIRING = {"O", "A"}


def project_models() -> list[type[Model]]:
    """The tables this code owns: managed, concrete models of the project's own apps."""
    return [
        m
        for config in apps.get_app_configs()
        if config.name in PROJECT_APPS
        for m in config.get_models()
        if m._meta.managed and not m._meta.proxy
    ]


def check_migrations() -> Checked:
    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    pending = executor.migration_plan(graph.leaf_nodes())
    applied = executor.loader.applied_migrations or {}
    unknown = sorted(key for key in applied if key not in graph.nodes)
    problems = [f"migration {m.app_label}.{m.name} is not applied" for m, _ in pending]
    problems += [
        f"migration {app}.{name} is recorded as applied but this code has no such migration "
        "(a dump of newer code?)"
        for app, name in unknown
    ]
    counts = {"applied": len(applied), "pending": len(pending), "unknown": len(unknown)}
    summary = (
        f"{len(applied)} migrations recorded as applied, {len(pending)} pending, "
        f"{len(unknown)} unknown to this code"
    )
    return Checked("migrations", summary, problems, counts)


def check_sequences() -> Checked:
    """Every sequence owned by a column (serial or identity) must hand out a value above
    the column's largest: pg_dump writes a `setval` for each, but a data-only restore,
    rows copied in by hand, or a restore that stopped early leaves one behind, and the
    next insert then fails on the primary key."""
    quote = connection.ops.quote_name
    problems: list[str] = []
    with connection.cursor() as cur:
        cur.execute(
            """
            SELECT s.relname, tbl.relname, a.attname
            FROM pg_class s
            JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass
                AND d.refclassid = 'pg_class'::regclass
            JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
            JOIN pg_class tbl ON tbl.oid = d.refobjid AND pg_catalog.pg_table_is_visible(tbl.oid)
            WHERE s.relkind = 'S'
            ORDER BY tbl.relname, a.attname
            """
        )
        owned = cur.fetchall()
        owned = [row for row in owned if row[1] not in _FIXED_ID_TABLES]
        for sequence, table, column in owned:
            cur.execute(f"SELECT last_value, is_called FROM {quote(sequence)}")  # noqa: S608  # catalog names, quoted
            last_value, is_called = cur.fetchone()
            cur.execute(f"SELECT max({quote(column)}) FROM {quote(table)}")  # noqa: S608
            (largest,) = cur.fetchone()
            next_value = last_value + 1 if is_called else last_value
            if largest is not None and next_value <= largest:
                problems.append(
                    f"sequence {sequence} would hand out {next_value}, but {table}.{column} already "
                    f"holds {largest}: the next insert would collide (SELECT setval('{sequence}', "
                    f"{largest}) repairs it)"
                )
    summary = (
        f"{len(owned)} sequences, each ahead of its column's largest value"
        if not problems
        else (f"{len(problems)} of {len(owned)} sequences behind their column's largest value")
    )
    return Checked("sequences", summary, problems, {"sequences": len(owned), "behind": len(problems)})


def _expected_constraints(model: type[Model]) -> list[tuple[str, Any]]:
    """(what, test) pairs: a test takes the table's introspected constraints."""
    meta = model._meta
    out: list[tuple[str, Any]] = [
        ("its primary key", lambda found: any(c["primary_key"] for c in found.values()))
    ]
    for constraint in meta.constraints:
        out.append((f"constraint {constraint.name}", lambda found, n=constraint.name: n in found))
    for index in meta.indexes:
        out.append((f"index {index.name}", lambda found, n=index.name: n in found))
    for f in meta.concrete_fields:
        # db_constraint is ForeignKey's own attribute (django-stubs do not declare it).
        if isinstance(f, ForeignKey) and getattr(f, "db_constraint", True):
            out.append(
                (
                    f"the foreign key on {f.column}",
                    lambda found, col=f.column: any(
                        c["foreign_key"] and c["columns"] == [col] for c in found.values()
                    ),
                )
            )
        elif f.unique and not f.primary_key:
            out.append(
                (
                    f"the unique constraint on {f.column}",
                    lambda found, col=f.column: any(
                        c["unique"] and c["columns"] == [col] for c in found.values()
                    ),
                )
            )
    return out


def check_constraints() -> Checked:
    problems: list[str] = []
    expected = 0
    models = project_models()
    with connection.cursor() as cur:
        tables = set(connection.introspection.table_names(cur))
        for model in models:
            table = model._meta.db_table
            if table not in tables:
                problems.append(f"table {table} is missing")
                continue
            found = connection.introspection.get_constraints(cur, table)
            for what, holds in _expected_constraints(model):
                expected += 1
                if not holds(found):
                    problems.append(f"{table} lacks {what}")
    summary = f"{len(models)} tables with {expected} keys, constraints and named indexes, " + (
        "all present" if not problems else f"{len(problems)} missing"
    )
    return Checked("constraints", summary, problems, {"tables": len(models), "expected": expected})


def check_triggers() -> Checked:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, t.tgname, t.tgenabled FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal"
        )
        found = {(table, name): str(enabled) for table, name, enabled in cur.fetchall()}
    problems = []
    total = 0
    for table, names in APPEND_ONLY_TRIGGERS.items():
        for name in names:
            total += 1
            state = found.get((table, name))
            if state is None:
                problems.append(f"trigger {name} on {table} is missing: the table is no longer append-only")
            elif state not in _FIRING:
                problems.append(f"trigger {name} on {table} is disabled (tgenabled {state!r})")
    summary = f"{total} append-only triggers, " + (
        "all present and enabled" if not problems else f"{len(problems)} not firing"
    )
    return Checked("append_only", summary, problems, {"triggers": total})


def installed_triggers() -> set[tuple[str, str]]:
    """(table, trigger) for every trigger on this code's tables (for the test that holds
    APPEND_ONLY_TRIGGERS to the migrations)."""
    tables = [m._meta.db_table for m in project_models()]
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE NOT t.tgisinternal AND c.relname = ANY(%s)",
            [tables],
        )
        return {(table, name) for table, name in cur.fetchall()}
