"""The Django side of the control-plane benchmark, run in its own process per database
(`python -m benchmarks.control_plane.probe --username U --token T`, with the server's
environment): which objects to load (the busiest route, its first and latest versions, the
benchmarked release with the most runs, one of its runs) and how many SQL queries each
endpoint costs, through Django's test client with `CaptureQueriesContext`. Prints JSON.

Measured at the small and the full scale, the counts show whether queries grow with the
data (an N+1) or stay constant."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def targets() -> dict[str, str]:
    """Endpoint name → path, for objects of this database, chosen by the same rule at every
    scale so that the pages take the same branches."""
    from django.db.models import Count, Max

    from benchmarks.control_plane.live_fixture import ensure_live_endpoints
    from benchmarks_app.models import Run
    from contracts_app.models import Route
    from releases_app.models import Release

    # The busiest route whose active release was benchmarked: its page shows that evidence.
    route = (
        Route.objects.filter(releases__state="active", releases__runs__state="succeeded")
        .annotate(n=Count("versions", distinct=True), last=Max("versions__number"))
        .order_by("-n", "id")
        .first()
    )
    release = (
        Release.objects.exclude(gate_result=None)
        .annotate(n=Count("runs"))
        .order_by("-n", "-id")
        .select_related("route")
        .first()
    )
    if route is None or release is None:
        raise SystemExit("no benchmarked active release: generate the data first")
    run = Run.objects.filter(release=release, state="succeeded").order_by("id").first()
    assert run is not None
    first = route.versions.order_by("number").values_list("number", flat=True).first()
    ensure_live_endpoints(route)
    return {
        # The floors first: every other endpoint's CPU is stated as a multiple of its own.
        "page: floor": "/bench/floor/",
        "api: floor": "/api/v1/bench/floor",
        "page: routes overview": "/",
        "page: fleet": "/fleet/",
        "page: workers": "/workers/",
        "page: route": f"/routes/{route.slug}/",
        "page: diff": f"/routes/{route.slug}/diff/?from={first}&to={route.last}",
        "page: release with charts": f"/releases/{release.pk}/",
        "page: audit": "/audit/",
        "api: routes": "/api/v1/routes/",
        "api: releases": "/api/v1/releases/",
        "api: runs": "/api/v1/runs/",
        "api: audit": "/api/v1/audit/",
        "api: release detail": f"/api/v1/releases/{release.pk}/",
        "api: run detail": f"/api/v1/runs/{run.pk}/",
        "api: audit verify": "/api/v1/audit/verify",
        # The first of ROTATING's paths: its queries are counted on this one.
        COLD_RELEASES: f"/releases/{cold_releases()[0]}/",
    }


# Endpoints whose requests each go to another object: a release page not viewed yet (its
# figures are not in the cache), as a reader going through the releases meets them.
COLD_RELEASES = "page: releases, distinct (cold)"


def cold_releases(limit: int = 5000) -> list[int]:
    """Gated releases, the ones with the most runs first (the costliest figures)."""
    from django.db.models import Count

    from releases_app.models import Release

    return list(
        Release.objects.exclude(gate_result=None)
        .annotate(n=Count("runs"))
        .order_by("-n", "-id")
        .values_list("pk", flat=True)[:limit]
    )


def rotations() -> dict[str, list[str]]:
    return {COLD_RELEASES: [f"/releases/{pk}/" for pk in cold_releases()]}


def _route_versions(path: str) -> dict[str, int]:
    from contracts_app.models import Route
    from live_app.models import AcceptanceSample, Endpoint

    route = Route.objects.get(slug=path.strip("/").split("/")[1])
    return {
        "versions": route.versions.count(),
        "endpoints": Endpoint.objects.filter(route=route).count(),
        "samples": AcceptanceSample.objects.filter(endpoint__route=route).count(),
    }


def sizes() -> dict[str, int]:
    from audit_app.models import AuditEvent
    from benchmarks_app.models import Run, RunResult
    from contracts_app.models import ContractVersion, Route
    from releases_app.models import Release

    return {
        m._meta.label: m.objects.count()
        for m in (Route, ContractVersion, Release, Run, RunResult, AuditEvent)
    }


def count_queries(paths: dict[str, str], username: str, token: str) -> dict[str, dict[str, Any]]:
    """Queries and status of one GET per endpoint: pages as the logged-in user, the API
    with the token (as the load test sends them)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    page = Client()
    page.force_login(get_user_model().objects.get(username=username))
    api = Client(headers={"Authorization": f"Token {token}"})
    out = {}
    for name, path in paths.items():
        client = api if name.startswith("api") else page
        client.get(path, secure=True)  # once first: lazy imports and caches are not the data's cost
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path, secure=True)
        out[name] = {"queries": len(captured), "status": response.status_code, "bytes": len(response.content)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--username", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
    import django

    django.setup()
    paths = targets()
    result = {
        "endpoints": paths,
        "rotations": rotations(),
        "route_versions": _route_versions(paths["page: route"]),
        "sizes": sizes(),
        "queries": count_queries(paths, args.username, args.token),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
