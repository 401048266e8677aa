"""What contracts_app asks when it stores a contract version that names workloads
(`measurement.workloads.<lane>.dataset: workload:NAME@sha256:…`): does each exist, for
this uploader, with its content; then, once the version is stored, record the uses.

workloads_app sits below contracts_app in the layers: the version service
(`contracts_app/services/versions.py`) calls `resolve` and `record_uses` directly.
"""

from __future__ import annotations

from typing import Any

from contracts_app.document import ContractError
from contracts_app.document.datasets import WorkloadRef, parse_workload_ref
from kernel.errors import FieldError
from workloads_app.models import WorkloadUse, WorkloadVersion
from workloads_app.selectors import workload_tombstone, workloads_visible_to


def workload_refs(document: dict[str, Any]) -> dict[str, WorkloadRef]:
    """lane → the registered workload it names (a valid document's)."""
    out = {}
    for lane, workload in ((document.get("measurement") or {}).get("workloads") or {}).items():
        ref = parse_workload_ref(str(workload.get("dataset", "")))
        if ref is not None:
            out[lane] = ref
    return out


def resolve(*, document: dict[str, Any], actor: Any) -> dict[str, WorkloadVersion]:
    """lane → the workload version; a ContractError naming each one that the uploader
    can't use: not registered (or not visible to them: the same answer), or deleted."""
    refs = workload_refs(document)
    if not refs:
        return {}
    visible = workloads_visible_to(actor)
    found: dict[str, WorkloadVersion] = {}
    errors = []
    for lane, ref in sorted(refs.items()):
        version = visible.filter(name=ref.name, digest=ref.digest).first()
        path = f"measurement.workloads.{lane}.dataset"
        if version is None:
            errors.append(
                FieldError(
                    path, f"no workload {ref.name}@{ref.digest} is registered (POST /api/v1/workloads/)"
                )
            )
        elif not version.has_content:  # type: ignore[attr-defined]
            tomb = workload_tombstone(version)
            when = f" on {tomb.at:%Y-%m-%d}" if tomb else ""
            errors.append(FieldError(path, f"workload {ref.name}@{ref.digest} was deleted{when}"))
        else:
            found[lane] = version
    if errors:
        raise ContractError("The contract is invalid; see errors.", errors=errors)
    return found


def record_uses(*, contract_version: Any, resolved: dict[str, WorkloadVersion]) -> None:
    WorkloadUse.objects.bulk_create(
        [
            WorkloadUse(workload=w, contract_version=contract_version, lane=lane)
            for lane, w in resolved.items()
        ]
    )
