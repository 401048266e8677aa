from __future__ import annotations

from django import forms


class AuditFilterForm(forms.Form):
    action = forms.CharField(required=False, max_length=64, help_text="e.g. release or release.approved")
    route = forms.CharField(required=False, max_length=64)
    actor = forms.CharField(required=False, max_length=160, help_text="user:alice, token:…, worker:…")
    object = forms.CharField(required=False, max_length=130, help_text="release:12")
    since = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    until = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
