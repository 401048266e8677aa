"""Datasets a contract names beyond the built-in prompt sets: registered workloads
(`workload:NAME@sha256:…`), which another app owns. contracts_app doesn't import that app
(it sits above this one: it reads which routes use a workload); it plugs its answers in
here at start-up (`workloads_app.apps`), as a small protocol."""

from __future__ import annotations

from typing import Any, Protocol

from contracts_app.document import ContractError
from specpact.errors import FieldError


class DatasetResolver(Protocol):
    def resolve(self, *, document: dict[str, Any], actor: Any) -> dict[str, Any]:
        """lane → the registered dataset the document names; a ContractError naming each
        one the uploader can't use."""

    def record_uses(self, *, contract_version: Any, resolved: dict[str, Any]) -> None:
        """Once the version is stored, in its transaction: remember that it uses them."""


_resolver: DatasetResolver | None = None


def dataset_resolver_install(resolver: DatasetResolver) -> None:
    global _resolver
    _resolver = resolver


def datasets_resolve(*, document: dict[str, Any], actor: Any, lanes: list[str]) -> dict[str, Any]:
    """What `lanes` (the ones naming a registered dataset) resolve to."""
    if _resolver is None:  # a project without the workloads app installed
        raise ContractError(
            "The contract is invalid; see errors.",
            errors=[
                FieldError(f"measurement.workloads.{lane}.dataset", "this server registers no workloads")
                for lane in lanes
            ],
        )
    return _resolver.resolve(document=document, actor=actor)


def datasets_record_uses(*, contract_version: Any, resolved: dict[str, Any]) -> None:
    if resolved and _resolver is not None:
        _resolver.record_uses(contract_version=contract_version, resolved=resolved)
