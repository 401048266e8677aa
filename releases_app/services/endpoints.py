"""Releases benchmarked against a route's live endpoints, which another app owns.

releases_app doesn't import live_app (it sits above this one: an endpoint may expect an
open release's candidate, and the watch proposes rollbacks); live_app plugs its answers in
here at start-up (`live_app.apps`), as a small protocol, the way workloads_app answers
for datasets (`contracts_app.services.datasets`)."""

from __future__ import annotations

from typing import Any, Protocol

from specpact.errors import DomainError, FieldError
from worker.spec import ARMS


class ReleaseEndpoints(Protocol):
    def check(self, *, route: Any, names: dict[str, str]) -> list[FieldError]:
        """At proposal: what is wrong with the endpoints named (unknown baseline, an
        endpoint that can't serve its arm); the candidate may be registered later."""

    def drift_after(self, *, release: Any) -> str | None:
        """When the benchmark has ended: probe both endpoints again; the reason the
        results can't be trusted (an endpoint drifted meanwhile), or None."""


_hook: ReleaseEndpoints | None = None


def release_endpoints_install(hook: ReleaseEndpoints) -> None:
    global _hook
    _hook = hook


def _invalid(errors: list[FieldError]) -> DomainError:
    return DomainError("The request is invalid; see errors.", errors=errors)


def checked_endpoint_names(*, route: Any, names: Any) -> dict[str, str]:
    """`{"baseline": NAME, "candidate": NAME}` as given at proposal, or a 400 naming the field."""
    if not isinstance(names, dict) or set(names) != set(ARMS):
        raise _invalid([FieldError("endpoints", 'give {"baseline": "prod-eu", "candidate": "canary"}')])
    bad = [
        FieldError(f"endpoints.{arm}", "an endpoint name") for arm in ARMS if not isinstance(names[arm], str)
    ]
    if bad:
        raise _invalid(bad)
    if names["baseline"] == names["candidate"]:
        raise _invalid([FieldError("endpoints.candidate", "must differ from the baseline endpoint")])
    if _hook is None:  # a project without live_app installed
        raise _invalid([FieldError("endpoints", "this server has no live endpoints")])
    errors = _hook.check(route=route, names=names)
    if errors:
        raise _invalid(errors)
    return {arm: names[arm] for arm in ARMS}


def endpoint_drift_after(*, release: Any) -> str | None:
    if not release.endpoints or _hook is None:
        return None
    return _hook.drift_after(release=release)
