"""Where raw samples should live so they can be dropped by age (issue 26, point 2): the cost
of dropping the oldest N months of result payloads, layout by layout, on a database
filled by `benchmarks/datagen/run.py`.

    .venv/bin/python benchmarks/raw_samples_layout.py \\
        --database-url postgres://postgres@127.0.0.1:5432/specpact_bench_data_small --months 6

Each layout is built beside the app's tables (its own scratch tables, the generated
results' payloads copied `--copies` times, compressed with lz4 as the app's column is) and
dropped afterwards; the app's own rows are not touched:

- `update_null`: the payload column set to NULL in place (`UPDATE ... SET payload = NULL`),
  then `VACUUM` (the dead rows and their TOAST chunks made reusable);
- `update_strip`: each level's `requests` removed from the payload in place (what
  `benchmarks_app.services.retention` keeps: the result's skeleton), then `VACUUM`;
- `delete`: a separate samples table, its rows deleted, then `VACUUM`;
- `partition_drop`: a table partitioned by month on `received_at` (PostgreSQL declarative
  partitioning; the key in the primary key), each month `DETACH PARTITION` + `DROP TABLE`.

Measured per layout: the wall time of the drop and of the vacuum, the WAL it wrote
(`pg_current_wal_lsn` before and after), and the table's size before and after (with its
TOAST and indexes). Prints a table and writes JSON to `--out`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
RESULTS = "benchmarks_app_runresult"

# Each level's `requests` removed, every other key kept (arms that are no harness result
# pass through): the same skeleton as `benchmarks_app.retention.without_samples`.
_STRIP = """
(SELECT jsonb_object_agg(arm, CASE
    WHEN jsonb_typeof(v) = 'object' AND jsonb_typeof(v->'levels') = 'array'
    THEN jsonb_set(v, ARRAY['levels'], (SELECT COALESCE(jsonb_agg(l - 'requests' ORDER BY i), '[]'::jsonb)
                                   FROM jsonb_array_elements(v->'levels') WITH ORDINALITY AS e(l, i)))
    ELSE v END)
 FROM jsonb_each(payload) AS p(arm, v))
"""


def _size(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(
        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "WHERE c.relname = %s OR c.oid IN (SELECT inhrelid FROM pg_inherits i "
        "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = %s)",
        [table, table],
    ).fetchone()
    return int(row[0]) if row else 0


def _lsn(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    return str(row[0]) if row else "0/0"


def _wal_since(conn: psycopg.Connection[Any], lsn: str) -> int:
    row = conn.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s::pg_lsn)", [lsn]).fetchone()
    return int(row[0]) if row else 0


def _months(conn: psycopg.Connection[Any]) -> list[datetime]:
    rows = conn.execute(
        f"SELECT DISTINCT date_trunc('month', received_at) FROM {RESULTS} ORDER BY 1"  # noqa: S608 (a constant)
    ).fetchall()
    return [r[0] for r in rows]


def _fill_plain(conn: psycopg.Connection[Any], table: str, copies: int) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute(
        f"CREATE TABLE {table} (id bigint PRIMARY KEY, received_at timestamptz NOT NULL, payload jsonb)"
    )
    conn.execute(f"ALTER TABLE {table} ALTER COLUMN payload SET COMPRESSION lz4")
    for k in range(copies):
        conn.execute(
            f"INSERT INTO {table} SELECT id + %s, received_at, payload FROM {RESULTS}",  # noqa: S608 (constants)
            [k * 10_000_000],
        )
    conn.execute(f"CREATE INDEX ON {table} (received_at)")


def _fill_partitioned(conn: psycopg.Connection[Any], table: str, copies: int, months: list[datetime]) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
    conn.execute(
        f"CREATE TABLE {table} (id bigint NOT NULL, received_at timestamptz NOT NULL, payload jsonb, "
        "PRIMARY KEY (id, received_at)) PARTITION BY RANGE (received_at)"
    )
    conn.execute(f"ALTER TABLE {table} ALTER COLUMN payload SET COMPRESSION lz4")
    for m in months:
        name = f"{table}_{m:%Y%m}"
        # DDL takes no parameters: the bounds are the month's own timestamps, quoted.
        conn.execute(
            f"CREATE TABLE {name} PARTITION OF {table} FOR VALUES FROM ('{m.isoformat()}') "
            f"TO ('{m.isoformat()}'::timestamptz + interval '1 month')"
        )
        conn.execute(f"ALTER TABLE {name} ALTER COLUMN payload SET COMPRESSION lz4")
    for k in range(copies):
        conn.execute(
            f"INSERT INTO {table} SELECT id + %s, received_at, payload FROM {RESULTS}",  # noqa: S608 (constants)
            [k * 10_000_000],
        )


def measure(conninfo: str, months_to_drop: int, copies: int) -> dict[str, Any]:
    out: dict[str, Any] = {"copies": copies, "months_dropped": months_to_drop, "layouts": {}}
    with psycopg.connect(conninfo, autocommit=True) as conn:
        months = _months(conn)
        if len(months) <= months_to_drop:
            raise SystemExit(f"the database holds {len(months)} months of results: drop fewer")
        cutoff = months[months_to_drop]
        row = conn.execute(
            f"SELECT count(*), COUNT(*) FILTER (WHERE received_at < %s) FROM {RESULTS}",  # noqa: S608 (a constant)
            [cutoff],
        ).fetchone()
        assert row is not None
        out.update(months=len(months), results=row[0] * copies, dropped_results=row[1] * copies)
        out["cutoff"] = cutoff.isoformat()
        plain = {
            "update_null": "UPDATE {t} SET payload = NULL WHERE received_at < %s AND payload IS NOT NULL",
            "update_strip": f"UPDATE {{t}} SET payload = {_STRIP} WHERE received_at < %s",  # noqa: S608
            "delete": "DELETE FROM {t} WHERE received_at < %s",
        }
        for name, statement in plain.items():
            table = f"bench_layout_{name}"
            _fill_plain(conn, table, copies)
            conn.execute(f"VACUUM ANALYZE {table}")
            before, lsn = _size(conn, table), _lsn(conn)
            t0 = time.perf_counter()
            conn.execute(statement.format(t=table), [cutoff])
            t1 = time.perf_counter()
            conn.execute(f"VACUUM {table}")
            t2 = time.perf_counter()
            out["layouts"][name] = {
                "drop_s": round(t1 - t0, 3),
                "vacuum_s": round(t2 - t1, 3),
                "wal_bytes": _wal_since(conn, lsn),
                "bytes_before": before,
                "bytes_after": _size(conn, table),
            }
            conn.execute(f"DROP TABLE {table}")
        table = "bench_layout_partitioned"
        _fill_partitioned(conn, table, copies, months)
        conn.execute(f"VACUUM ANALYZE {table}")
        before, lsn = _size(conn, table), _lsn(conn)
        t0 = time.perf_counter()
        for m in months[:months_to_drop]:
            conn.execute(f"ALTER TABLE {table} DETACH PARTITION {table}_{m:%Y%m}")
            conn.execute(f"DROP TABLE {table}_{m:%Y%m}")
        t1 = time.perf_counter()
        out["layouts"]["partition_drop"] = {
            "drop_s": round(t1 - t0, 3),
            "vacuum_s": 0.0,
            "wal_bytes": _wal_since(conn, lsn),
            "bytes_before": before,
            "bytes_after": _size(conn, table),
        }
        conn.execute(f"DROP TABLE {table} CASCADE")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", required=True, help="a database filled by benchmarks/datagen")
    parser.add_argument("--months", type=int, default=6, help="the oldest months to drop")
    parser.add_argument("--copies", type=int, default=1, help="the results copied this many times")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "raw_samples_layout.json")
    args = parser.parse_args(argv)
    report = measure(args.database_url, args.months, args.copies)
    print(
        f"{report['results']:,} results over {report['months']} months; the oldest {args.months} "
        f"months ({report['dropped_results']:,} results) dropped"
    )
    print(f"{'layout':<16}{'drop s':>9}{'vacuum s':>10}{'WAL MB':>9}{'MB before':>11}{'MB after':>10}")
    for name, m in report["layouts"].items():
        print(
            f"{name:<16}{m['drop_s']:>9.3f}{m['vacuum_s']:>10.3f}{m['wal_bytes'] / 2**20:>9.1f}"
            f"{m['bytes_before'] / 2**20:>11.1f}{m['bytes_after'] / 2**20:>10.1f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
