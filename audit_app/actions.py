"""Every action the audit trail records, by family, and which of them webhooks send.

A family is the action's first word (`release.proposed` is in `release`). An action that
is a webhook event goes out under its own name (webhooks_app/events.py); the others stay in
the trail. A release's state changes are not listed here: their actions are the release
transition table's (releases_app/choices.py, `TRANSITIONS`), which the audit trail can't
import, and each of them is a webhook event. tests/audit/test_actions.py checks that every
`audit_record(action="…")` in the code is listed here, and nothing else.
"""

from __future__ import annotations

WEBHOOK, TRAIL_ONLY = True, False

FAMILIES: dict[str, dict[str, bool]] = {
    # Beside its transitions: proposing, overriding a gate, refusing to benchmark on
    # drifted endpoints. `runs.create` (benchmarks_app asking for a release's runs) is the
    # benchmark's bookkeeping, not a change of the release: `release.benchmark_started` says it.
    "release": {
        "proposed": WEBHOOK,
        "overridden": WEBHOOK,
        "benchmark_refused": WEBHOOK,
        "runs.create": TRAIL_ONLY,
    },
    # A route's live endpoints (live_app).
    "endpoint": {"created": WEBHOOK, "updated": WEBHOOK, "deleted": WEBHOOK},
    # A route's secret bindings (live_app): where a secret is read and the hosts it may go to.
    "secret_binding": {"created": TRAIL_ONLY, "updated": TRAIL_ONLY, "deleted": TRAIL_ONLY},
    # The conformance probe found the endpoint's state changed (conforms, drifted, unknown).
    "drift": {"state_changed": WEBHOOK},
    # Someone asked for a probe of an endpoint (it sends requests out in their name).
    "probe": {"requested": TRAIL_ONLY},
    # The acceptance watch raised an alert and proposed a rollback; or it saw the engine
    # switch speculation off by itself (TensorRT-LLM's acceptance cut-off, live_app/services/watch.py).
    "acceptance": {"alert_raised": WEBHOOK, "engine_switched_off": WEBHOOK},
    "route": {"created": TRAIL_ONLY, "updated": TRAIL_ONLY},
    "contract": {"uploaded": TRAIL_ONLY},
    "workload": {"uploaded": TRAIL_ONLY, "restored": TRAIL_ONLY, "deleted": TRAIL_ONLY},
    # A run's life as its worker reports it (benchmarks_app/services/lifecycle.py), by the
    # worker's actor: claimed, started over after a redelivery, each (level, arm) piece
    # done, failed, its result accepted (with the result's digest).
    "run": {
        "create": TRAIL_ONLY,
        "cancel": TRAIL_ONLY,
        "started": TRAIL_ONLY,
        "restarted": TRAIL_ONLY,
        "progress": TRAIL_ONLY,
        "failed": TRAIL_ONLY,
        "result_accepted": TRAIL_ONLY,
    },
    # The retention setting took raw samples out of results older than its cutoff: one
    # event per prune, with the counts (benchmarks_app/services/retention.py).
    "retention": {"samples_pruned": TRAIL_ONLY},
    "worker": {
        "register": TRAIL_ONLY,
        "revoke": TRAIL_ONLY,
        "bootstrap_token.issue": TRAIL_ONLY,
        "bootstrap_token.revoke": TRAIL_ONLY,
    },
    "user": {"created": TRAIL_ONLY, "role_changed": TRAIL_ONLY, "routes_changed": TRAIL_ONLY},
    "token": {"issued": TRAIL_ONLY, "revoked": TRAIL_ONLY},
    # `login.sso`: a sign-in through the OpenID Connect provider (accounts_app/sso.py).
    "login": {"locked_out": TRAIL_ONLY, "sso": TRAIL_ONLY},
    # Webhooks' own events never go out as webhooks: a dead delivery would send another.
    "webhook": {
        "created": TRAIL_ONLY,
        "deleted": TRAIL_ONLY,
        "delivery_dead": TRAIL_ONLY,
        "redelivered": TRAIL_ONLY,
    },
}

ACTIONS: dict[str, bool] = {
    f"{family}.{name}": webhook for family, names in FAMILIES.items() for name, webhook in names.items()
}
WEBHOOK_ACTIONS: tuple[str, ...] = tuple(action for action, webhook in ACTIONS.items() if webhook)
