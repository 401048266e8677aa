"""The OpenAPI schema as a contract: schemathesis against the live server's own schema,
with an admin token, a fixed seed and a bounded number of examples per operation. No 5xx,
no response that breaks its schema, no status code the schema doesn't list.

Left out: the worker protocol (its own tokens; tests/benchmarks cover it) and the calls that
would end the run's own credentials (revoking tokens)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.factories import example, make_token, make_version

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EXAMPLES_PER_OPERATION = 20
_EXCLUDED = r"^/api/v1/(workers/(register|heartbeat)|runs/\{run_id\}/(result|start|events|progress)|tokens/)"


@pytest.fixture
def api_schema(live_server: Any, admin: Any, settings: Any) -> Any:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": None, "worker": None, "anon": None},
    }
    make_version("contract-summaries", example())  # one route and version for path parameters to find
    key = make_token(admin, "admin").key
    raw = httpx.get(
        f"{live_server.url}/api/v1/schema/",
        params={"format": "json"},
        headers={"Authorization": f"Token {key}"},
    )
    raw.raise_for_status()
    loaded = schemathesis.openapi.from_dict(raw.json()).exclude(path_regex=_EXCLUDED)
    loaded.test_base_url = live_server.url  # type: ignore[attr-defined]
    loaded.test_token = key  # type: ignore[attr-defined]
    return loaded


_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _fuzz(operation: Any, base_url: str, token: str) -> None:
    @seed(20261201)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def run(case: Any) -> None:
        case.call_and_validate(base_url=base_url, headers={"Authorization": f"Token {token}"}, checks=_CHECKS)

    run()


def test_the_server_keeps_its_schema(api_schema: Any) -> None:
    """Every operation is fuzzed (one failure doesn't hide the others); all failures are listed."""
    failures: dict[str, str] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 30
    for operation in operations:
        try:
            _fuzz(operation, api_schema.test_base_url, api_schema.test_token)
        except (Exception, BaseExceptionGroup) as exc:  # a failed check: keep going, report them all
            failures[operation.label] = str(exc)[:2000]
    assert not failures, "\n\n".join(f"{label}:\n{why}" for label, why in failures.items())
