from __future__ import annotations

from typing import Any

from django import forms

from kernel.text import JUSTIFICATION_MAX, REASON_MAX
from releases_app.choices import MIN_JUSTIFICATION_LENGTH


class DecisionForm(forms.Form):
    reason = forms.CharField(max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}))
    # The lock version the page was rendered with: a form left open while someone else
    # acted is refused (412) instead of acting on a state the user never saw.
    lock_version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class ApproveForm(DecisionForm):
    override = forms.BooleanField(required=False, label="Override the failed gate")
    justification = forms.CharField(
        required=False,
        max_length=JUSTIFICATION_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=f"Why the failed gate is acceptable (at least {MIN_JUSTIFICATION_LENGTH} characters).",
    )


class ProposeForm(forms.Form):
    route = forms.SlugField(max_length=64)
    candidate_version = forms.IntegerField(min_value=1)
    reason = forms.CharField(required=False, max_length=REASON_MAX)
    # Both or neither: benchmark on two live endpoints of the route (live_app).
    baseline_endpoint = forms.CharField(required=False, max_length=40)
    candidate_endpoint = forms.CharField(required=False, max_length=40)
    # Where a refusal is shown: the releases page (default), or the route's or the
    # version's page the form was posted from. A choice, not a URL: no open redirect.
    back = forms.ChoiceField(
        required=False, choices=[("", "releases"), ("route", "route"), ("version", "version")]
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        baseline, candidate = data.pop("baseline_endpoint", ""), data.pop("candidate_endpoint", "")
        if bool(baseline) != bool(candidate):
            raise forms.ValidationError("give both endpoints, or neither")
        data["endpoints"] = {"baseline": baseline, "candidate": candidate} if baseline else None
        return data
