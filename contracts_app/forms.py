from __future__ import annotations

from typing import Any

from django import forms

from contracts_app.document import MAX_DOCUMENT_BYTES


class VersionForm(forms.Form):
    """A contract document, typed (or pasted) into the text area or chosen as a file."""

    text = forms.CharField(
        required=False,
        strip=False,
        label="Contract (YAML or JSON)",
        widget=forms.Textarea(attrs={"rows": 30, "spellcheck": "false", "class": "mono yaml-editor"}),
    )
    file = forms.FileField(required=False, label="…or upload a file", widget=forms.ClearableFileInput(
        attrs={"accept": ".yaml,.yml,.json,application/yaml,application/json"}
    ))  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload, text = data.get("file"), data.get("text") or ""
        if upload is not None and text.strip():
            raise forms.ValidationError("give the contract as text or as a file, not both")
        if upload is None and not text.strip():
            raise forms.ValidationError("the contract is empty: type it in, or choose a file")
        if upload is not None and upload.size is not None and upload.size > MAX_DOCUMENT_BYTES:
            raise forms.ValidationError(
                f"the file is {upload.size} bytes; the limit is {MAX_DOCUMENT_BYTES} bytes "
                "(MAX_DOCUMENT_BYTES)"
            )
        return data
