from __future__ import annotations

import re

from django import forms

from accounts_app.models import TokenPurpose
from accounts_app.roles import Role
from kernel.text import NAME_MAX, REASON_MAX


class TokenIssueForm(forms.Form):
    """The API's token options (accounts_app/api/serializers.py, TokenIssueSerializer);
    the service (token_issue) checks role, scope and expiry again."""

    user = forms.CharField(required=False, max_length=150, help_text="username (admins); empty: yourself")
    name = forms.CharField(required=False, max_length=NAME_MAX, help_text="what it is for, e.g. ci-pipeline")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.OPERATOR)
    routes = forms.CharField(
        required=False,
        max_length=2000,
        help_text="route slugs, separated by spaces or commas; empty: every route",
    )
    purpose = forms.ChoiceField(
        required=False,
        choices=TokenPurpose.choices,
        initial=TokenPurpose.GENERAL,
        help_text="rollout gate: only Argo Rollouts' analysis and Flagger's hooks (routes, viewer role)",
    )
    expires_at = forms.DateTimeField(
        required=False,
        label="Expires (UTC)",
        help_text="YYYY-MM-DD HH:MM; empty: never",
        widget=forms.DateTimeInput(attrs={"placeholder": "2027-01-31 18:00"}),
    )

    def token_purpose(self) -> str:
        return self.cleaned_data.get("purpose") or TokenPurpose.GENERAL

    def route_slugs(self) -> list[str]:
        return [s for s in re.split(r"[\s,]+", self.cleaned_data.get("routes") or "") if s]


class TokenRevokeForm(forms.Form):
    reason = forms.CharField(required=False, max_length=REASON_MAX)
