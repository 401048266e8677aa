"""The "archived engine" notice of a route page (issue 23): the active contract's engine is
no longer developed upstream; its contract rendered for the engines that replace it."""

from __future__ import annotations

from dataclasses import dataclass

from contracts_app.document import ContractError, validate_document
from contracts_app.document.archived import ARCHIVED, Translation, notice, translations
from contracts_app.models import Route


@dataclass(frozen=True)
class ArchivedEngine:
    notice: str
    translations: list[Translation]


def archived_engine(route: Route) -> ArchivedEngine | None:
    version = route.active_version
    document = version.document if version is not None else None
    engine = ((document or {}).get("target") or {}).get("engine")
    if engine not in ARCHIVED:
        return None
    try:
        doc = validate_document(document)
    except ContractError:  # stored under older rules: the notice still holds, no translation is shown
        return None
    text = notice(doc)
    return ArchivedEngine(text, translations(doc)) if text else None
