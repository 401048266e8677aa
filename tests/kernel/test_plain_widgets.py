"""kernel.widgets.PlainWidgets writes what Django's widget templates write, byte for byte,
for inputs and selects (values and labels escaped alike, True/False attributes, groups,
the selected option, a bound form's errors), and leaves every other widget to them."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates
from django.utils.safestring import mark_safe

from kernel.filtersets import PLAIN_WIDGETS

HOSTILE = "<b>\"x\" & 'y'</b>"


class Everything(forms.Form):
    choice = forms.ChoiceField(
        choices=[("", "any"), ("a", "A"), (HOSTILE, HOSTILE), (3, "three")], required=False, help_text="pick"
    )
    grouped = forms.ChoiceField(
        choices=[("", "none"), (HOSTILE, [("g1", "one"), ("g2", HOSTILE)]), ("plain", "plain")],
        required=False,
    )
    many = forms.MultipleChoiceField(choices=[("a", "A"), ("b", "B")], required=False)
    text = forms.CharField(
        max_length=10,
        required=False,
        widget=forms.TextInput(
            attrs={"list": "known", "autofocus": True, "hidden": False, "data-x": HOSTILE}
        ),
    )
    number = forms.IntegerField(min_value=1, required=False)
    hidden = forms.CharField(widget=forms.HiddenInput, required=False)
    safe = forms.CharField(widget=forms.TextInput(attrs={"title": mark_safe("<i>ok</i>")}), required=False)
    # Not drawn in Python: Django's templates still are.
    note = forms.CharField(widget=forms.Textarea, required=False)
    agree = forms.BooleanField(required=False)
    radio = forms.ChoiceField(choices=[("a", "A")], widget=forms.RadioSelect, required=False)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {
            "choice": HOSTILE,
            "grouped": "g2",
            "many": ["a", "b"],
            "text": HOSTILE,
            "number": "7",
            "hidden": "h",
        },
        {"choice": "3", "text": "", "number": "0", "safe": "s"},
        {"choice": "nope", "grouped": "nope", "text": "far too long for it", "number": "x"},
    ],
)
def test_every_field_is_drawn_as_djangos_templates_draw_it(data: dict[str, Any] | None) -> None:
    plain = Everything(data, renderer=PLAIN_WIDGETS)
    django = Everything(data, renderer=DjangoTemplates())
    if data:
        plain.is_valid(), django.is_valid()
    for name in Everything.base_fields:
        assert str(plain[name]) == str(django[name]), name
