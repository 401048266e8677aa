from __future__ import annotations

from django import forms

from workloads_app.models import WorkloadVersion


class WorkloadUploadForm(forms.Form):
    """The API's upload options (workloads_app/api/serializers.py, UploadParams), as a form;
    the service (workload_upload) checks them again."""

    name = forms.CharField(max_length=100, help_text="e.g. support-chat-2026-11")
    format = forms.ChoiceField(choices=WorkloadVersion.Format.choices, initial="specpact")
    source = forms.CharField(
        max_length=200, required=False, help_text="where it came from, e.g. production logs"
    )
    redact = forms.BooleanField(required=False, label="Redact e-mail addresses, phone numbers, …")
    redact_patterns = forms.CharField(
        required=False,
        max_length=3000,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Extra patterns to redact",
        help_text="one regular expression a line, RE2 syntax (no backreferences or lookaround)",
    )
    context_tokens = forms.IntegerField(
        min_value=1, required=False, help_text="the target's context: longer prompts are refused"
    )
    file = forms.FileField(label="Workload file (JSONL)")

    def patterns(self) -> tuple[str, ...]:
        text = self.cleaned_data.get("redact_patterns") or ""
        return tuple(line.strip() for line in text.splitlines() if line.strip())
