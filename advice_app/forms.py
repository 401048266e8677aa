"""The advice pages' forms: a new advice run for a route, and proposing its draft."""

from __future__ import annotations

import re
from typing import Any, cast

from django import forms

from contracts_app.models import Route
from kernel.text import REASON_MAX

MAX_CANDIDATE_LINES = 12
# One candidate a line, as the CLI's `--candidate method:tokens`: an optional name after it.
_LINE = re.compile(r"^(?P<method>[a-z0-9_]+):(?P<tokens>\d{1,3})(?:\s+(?P<name>\S{1,64}))?$")


class AdviceCreateForm(forms.Form):
    lanes = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, help_text="The lanes to advise on."
    )
    candidates = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "ngram:3\nngram:6 ngram-long"}),
        max_length=2000,
        help_text="One candidate a line: method:tokens, optionally a name after a space. "
        "Speculation off is always measured. Candidates with assets: the API or `specpact advise`.",
    )
    budget = forms.IntegerField(
        min_value=1, max_value=10_000_000, initial=2000, help_text="Requests per lane, both arms together."
    )
    budget_gpu_minutes = forms.FloatField(
        min_value=0.001,
        max_value=7 * 24 * 60,
        required=False,
        label="GPU-minutes",
        help_text="Optional: at most this many minutes of worker time, all lanes together.",
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0, required=False)

    def __init__(self, *args: Any, route: Route, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        active = route.active_version
        workloads = ((active.document.get("measurement") or {}).get("workloads") or {}) if active else {}
        lanes = sorted(workloads)
        field = cast(forms.MultipleChoiceField, self.fields["lanes"])
        field.choices = [(lane, lane) for lane in lanes]
        field.initial = lanes[:1]

    def clean_candidates(self) -> list[dict[str, Any]]:
        """Each line as the create service's candidate dict; the service judges the method
        and tokens against the engine release (its errors come back by field)."""
        lines = [line.strip() for line in self.cleaned_data["candidates"].splitlines() if line.strip()]
        if not lines:
            raise forms.ValidationError("give at least one candidate, e.g. ngram:3")
        if len(lines) > MAX_CANDIDATE_LINES:
            raise forms.ValidationError(f"at most {MAX_CANDIDATE_LINES} candidates")
        out = []
        for i, line in enumerate(lines, 1):
            m = _LINE.match(line)
            if m is None:
                raise forms.ValidationError(f"line {i} ({line[:40]!r}): write method:tokens, e.g. ngram:3")
            candidate: dict[str, Any] = {"method": m["method"], "tokens": int(m["tokens"])}
            if m["name"]:
                candidate["name"] = m["name"]
            out.append(candidate)
        return out


class AdviceProposeForm(forms.Form):
    reason = forms.CharField(required=False, max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}))
