"""live_app's writes: keyword-only, each in a transaction, raising kernel.errors.DomainError."""

from kernel.outbound import endpoint_policy  # where endpoints may be: the one rule runs use too
from live_app.services.endpoints import endpoint_create, endpoint_delete, endpoint_update
from live_app.services.probes import endpoint_probe, expected_version
from live_app.services.runs import endpoints_run_create
from live_app.services.watch import acceptance_record, alert_raise, watch_actor

__all__ = [
    "acceptance_record",
    "alert_raise",
    "endpoint_create",
    "endpoint_delete",
    "endpoint_policy",
    "endpoint_probe",
    "endpoint_update",
    "endpoints_run_create",
    "expected_version",
    "watch_actor",
]
