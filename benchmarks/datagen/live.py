"""A year of live probes (issue 26, point 2): endpoints on a share of the served routes, each
probed every hour and scraped every 15 minutes for the scale's `live_days`, as a deployment
that keeps a year of endpoint history would hold them (`ENDPOINT_HISTORY_DAYS=365`; the
default keeps 30 days, and `live_app.tasks.history_prune` would delete the rest).

PostgreSQL writes the rows itself (`generate_series`): 876,000 probes and 3.5M samples at the
full scale would cost minutes as Python rows; Python only builds, per version a route ran, the
probe's facts and coverage words with the product's own functions
(`live_app.conformance.coverage`). What the rows say:
- each probe holds the endpoint against the version that was active on its route at that hour
  (the plan's activation history), so a probe never names a version before it ran;
- an endpoint drifts for four hours on about one day in fifteen (the engine's drafted tokens
  differ from the contract's; only where the contract names them), otherwise it conforms;
  its `state` and `last_probe` are its newest probe;
- samples carry cumulative counters (reset at each activation: the engine restarted) and the
  window's acceptance, only where the version speculates.
No acceptance alerts and no probe requests are written, and the endpoints' registration is not
in the audit journal (the chain is built before this step)."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg

from benchmarks.datagen.plan import RoutePlan, VersionPlan
from benchmarks.datagen.scale import Scale
from contracts_app.document.engines import ENGINE_NAMES, SERVER_ENGINES
from live_app.conformance.coverage import coverage_words, field_facts

ENDPOINT_NAMES = ("prod", "canary")
PROBE_EVERY = timedelta(hours=1)
SAMPLE_EVERY = timedelta(minutes=15)
DRIFTED_FIELD = "speculation.num_speculative_tokens"


@dataclass(frozen=True)
class LiveCounts:
    endpoints: int
    probes: int
    samples: int


def live_routes(routes: list[RoutePlan], scale: Scale) -> list[RoutePlan]:
    """`scale.live_routes` of the routes served by a server engine now, spread evenly by id."""
    served = [r for r in sorted(routes, key=lambda r: r.id) if r.active_version and _engine(r.active_version)]
    if not served or scale.live_routes <= 0:
        return []
    step = max(1, len(served) // scale.live_routes)
    return served[::step][: scale.live_routes]


def write_live_year(
    conn: psycopg.Connection[Any], routes: list[RoutePlan], scale: Scale, end: datetime
) -> LiveCounts:
    """Endpoints, probes and samples for `live_routes(routes, scale)`, in the caller's transaction."""
    chosen = live_routes(routes, scale)
    start = end - timedelta(days=scale.live_days)
    with conn.cursor() as cur:
        cur.execute(
            "CREATE TEMP TABLE datagen_live_active (route_id bigint, since timestamptz, "
            "until timestamptz, version_id bigint, speculates boolean, facts_ok jsonb, coverage_ok text, "
            "facts_drift jsonb, coverage_drift text, differences_drift jsonb) ON COMMIT DROP"
        )
        with cur.copy("COPY datagen_live_active FROM STDIN") as copy:
            for route in chosen:
                for row in _timeline(route, start, end):
                    copy.write_row(row)
        cur.execute("CREATE TEMP TABLE datagen_live_endpoints (id bigint, route_id bigint) ON COMMIT DROP")
        endpoint_rows: list[tuple[int, int]] = []
        for route in chosen:
            assert route.active_version is not None
            engine = _engine(route.active_version)
            first = max(start, route.active_history[0][0]) if route.active_history else start
            for name in ENDPOINT_NAMES:
                cur.execute(
                    "INSERT INTO live_app_endpoint (route_id, name, base_url, metrics_url, "
                    "metrics_host_allowed, engine, expects, auth_dropped, state, created_at) "
                    "VALUES (%s, %s, %s, %s, false, %s, 'active', '', 'unknown', %s) RETURNING id",
                    [
                        route.id,
                        name,
                        f"http://{name}.{route.slug}.bench.invalid:8000",
                        f"http://{name}.{route.slug}.bench.invalid:8000/metrics",
                        engine,
                        first,
                    ],
                )
                created = cur.fetchone()
                assert created is not None
                endpoint_rows.append((created[0], route.id))
        with cur.copy("COPY datagen_live_endpoints (id, route_id) FROM STDIN") as copy:
            for endpoint_row in endpoint_rows:
                copy.write_row(endpoint_row)
        probes = _probes(cur, start, end)
        samples = _samples(cur, start, end)
        # Each endpoint's newest probe is its state (as `live_app.services` records a probe).
        cur.execute(
            "UPDATE live_app_endpoint AS e SET last_probe_id = p.id, state = p.state "
            "FROM (SELECT DISTINCT ON (endpoint_id) endpoint_id, id, state FROM live_app_probe "
            "      WHERE endpoint_id IN (SELECT id FROM datagen_live_endpoints) "
            "      ORDER BY endpoint_id, probed_at DESC, id DESC) AS p "
            "WHERE e.id = p.endpoint_id"
        )
    return LiveCounts(endpoints=len(endpoint_rows), probes=probes, samples=samples)


def _probes(cur: psycopg.Cursor[Any], start: datetime, end: datetime) -> int:
    # A drifted stretch: hours 2-5 of about one day in fifteen, chosen by a hash of the
    # endpoint and the day, so every endpoint drifts on its own days.
    cur.execute(
        """
        INSERT INTO live_app_probe (endpoint_id, state, version_id, differences, unknown, reason,
                                    evidence, reached, facts, coverage, probed_at, actor)
        SELECT e.id, CASE WHEN d.drift THEN 'drifted' ELSE 'conforms' END, a.version_id,
               CASE WHEN d.drift THEN a.differences_drift ELSE '[]'::jsonb END, '[]'::jsonb, '',
               '{}'::jsonb, true,
               CASE WHEN d.drift THEN a.facts_drift ELSE a.facts_ok END,
               CASE WHEN d.drift THEN a.coverage_drift ELSE a.coverage_ok END,
               t, 'beat'
        FROM datagen_live_endpoints e
        JOIN datagen_live_active a ON a.route_id = e.route_id
        CROSS JOIN LATERAL generate_series(
            date_trunc('hour', GREATEST(a.since, %(start)s)) + interval '1 hour',
            LEAST(a.until, %(end)s), %(every)s) AS t
        CROSS JOIN LATERAL (SELECT a.differences_drift <> '[]'::jsonb
                                   AND abs(hashtext(e.id || '/' || date_trunc('day', t))) %% 15 = 0
                                   AND extract(hour FROM t) BETWEEN 2 AND 5 AS drift) AS d
        WHERE t < a.until
        """,
        {"start": start, "end": end, "every": PROBE_EVERY},
    )
    return cur.rowcount


def _samples(cur: psycopg.Cursor[Any], start: datetime, end: datetime) -> int:
    # Counters restart with each activation (n counts the scrapes since); the window's
    # acceptance wanders between 0.55 and 0.80 with the hour of the day.
    cur.execute(
        """
        INSERT INTO live_app_acceptancesample
            (endpoint_id, taken_at, source, draft_tokens, accepted_tokens, drafts, reset,
             window_draft_tokens, window_acceptance_rate, window_mean_acceptance_length,
             below_floor, engine_off)
        SELECT e.id, s.t, 'metrics', s.n * 4000.0, s.n * 4000.0 * s.rate, s.n * 1300.0, s.n = 1,
               CASE WHEN s.n = 1 THEN NULL ELSE 4000.0 END,
               CASE WHEN s.n = 1 THEN NULL ELSE s.rate END,
               CASE WHEN s.n = 1 THEN NULL ELSE 1.0 + 3.0 * s.rate END,
               false, false
        FROM datagen_live_endpoints e
        JOIN datagen_live_active a ON a.route_id = e.route_id AND a.speculates
        CROSS JOIN LATERAL (
            SELECT t, row_number() OVER (ORDER BY t) AS n,
                   0.55 + 0.25 * (1 + sin(extract(epoch FROM t) / 13751.0)) / 2 AS rate
            FROM generate_series(
                date_trunc('hour', GREATEST(a.since, %(start)s)) + interval '15 minutes',
                LEAST(a.until, %(end)s), %(every)s) AS t
            WHERE t < a.until) AS s
        """,
        {"start": start, "end": end, "every": SAMPLE_EVERY},
    )
    return cur.rowcount


def _timeline(route: RoutePlan, start: datetime, end: datetime) -> list[list[Any]]:
    """(route, since, until, version, speculates, facts/coverage conforming and drifted) per
    activation overlapping [start, end]."""
    out = []
    history = route.active_history
    for i, (since, version) in enumerate(history):
        until = history[i + 1][0] if i + 1 < len(history) else end
        if until <= start or since >= end:
            continue
        ok, drift = _facts(version)
        speculates = version.speculation[0] != "none"
        out.append(
            [
                route.id,
                since,
                until,
                version.id,
                speculates,
                json.dumps(ok["facts"]),
                ok["coverage"],
                json.dumps(drift["facts"]),
                drift["coverage"],
                json.dumps(drift["differences"]),
            ]
        )
    return out


def _facts(version: VersionPlan) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a probe of this version finds when it conforms and when its drafted tokens differ."""
    doc = version.stored.document
    engine = _engine(version) or "vllm"
    words = f"{ENGINE_NAMES[engine]} {doc['target'].get('engine_version') or ''}".strip()
    method = version.speculation[0]
    checked: dict[str, tuple[Any, Any]] = {
        "target.model": (doc["target"].get("model"), doc["target"].get("model")),
        "speculation.method": (method, method),
    }
    tokens = (doc.get("speculation") or {}).get("num_speculative_tokens")
    if tokens is not None:
        checked[DRIFTED_FIELD] = (tokens, tokens)
    unknown = ["compatibility.tokenizer.revision"]
    sources = ["/v1/models", "/metrics"]
    ok_facts = field_facts(checked, {}, [], unknown, reached=True, sources=sources)
    differences = []
    if tokens is not None:
        drifted_to = int(tokens) + 1 + zlib.crc32(str(version.id).encode()) % 3
        checked = {**checked, DRIFTED_FIELD: (tokens, drifted_to)}
        differences = [{"path": DRIFTED_FIELD, "expected": tokens, "observed": drifted_to}]
    drift_facts = field_facts(checked, {}, differences, unknown, reached=True, sources=sources)
    return (
        {"facts": ok_facts, "coverage": coverage_words(ok_facts, words, reached=True)},
        {
            "facts": drift_facts,
            "coverage": coverage_words(drift_facts, words, reached=True),
            "differences": differences,
        },
    )


def _engine(version: VersionPlan) -> str | None:
    engine = version.stored.document["target"].get("engine")
    return engine if engine in SERVER_ENGINES else None
