"""The routes overview's filters (GET parameters), validated: a bad value is named on
the page and the filter is dropped, never a 500."""

from __future__ import annotations

from typing import Any

from django import forms

from contracts_app.document.engines import METHODS
from contracts_app.document.schema import KNOWN_LANES, LANE_PATTERN
from dashboard_app.selectors.overview import NOT_MEASURED
from releases_app.choices import GateVerdict

_ANY = [("", "any")]


class RouteFilterForm(forms.Form):
    method = forms.ChoiceField(required=False, choices=[*_ANY, *[(m, m) for m in METHODS]])
    lane = forms.RegexField(
        required=False,
        regex=LANE_PATTERN,
        max_length=63,
        error_messages={"invalid": "a lane is lowercase letters, digits, '_' or '-'"},
        widget=forms.TextInput(attrs={"list": "known-lanes"}),
    )
    verdict = forms.ChoiceField(
        required=False,
        choices=[*_ANY, *[(v, v) for v in GateVerdict.values], (NOT_MEASURED, "not measured")],
    )
    pending = forms.ChoiceField(
        required=False, choices=[*_ANY, ("yes", "with a pending release"), ("no", "without")]
    )

    known_lanes = KNOWN_LANES

    def filters(self) -> dict[str, Any]:
        """Keyword arguments for `route_rows` (empty when the form is unbound or invalid)."""
        if not self.is_bound or not self.is_valid():
            return {}
        data = self.cleaned_data
        pending = {"yes": True, "no": False}.get(data["pending"])
        return {
            "method": data["method"],
            "lane": data["lane"],
            "verdict": data["verdict"],
            "pending": pending,
        }
