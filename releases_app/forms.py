from __future__ import annotations

from django import forms

from releases_app.choices import MIN_JUSTIFICATION_LENGTH


class DecisionForm(forms.Form):
    reason = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    # The lock version the page was rendered with: a form left open while someone else
    # acted is refused (412) instead of acting on a state the user never saw.
    lock_version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class ApproveForm(DecisionForm):
    override = forms.BooleanField(required=False, label="Override the failed gate")
    justification = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=f"Why the failed gate is acceptable (at least {MIN_JUSTIFICATION_LENGTH} characters).",
    )


class ProposeForm(forms.Form):
    route = forms.SlugField(max_length=64)
    candidate_version = forms.IntegerField(min_value=1)
    reason = forms.CharField(required=False, max_length=2000)
