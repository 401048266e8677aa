"""kernel.urls.url_maker gives what `reverse` gives, for int and str path arguments."""

from __future__ import annotations

import pytest
from django.urls import reverse

from kernel.urls import url_maker, url_maker2


@pytest.mark.parametrize(
    ("name", "arg"),
    [
        ("release-detail", 1),
        ("release-detail", 987654),
        ("route-detail", "support-chat"),
        ("route-detail", "a.b_c~d"),
        ("route-detail", "ünïcode"),
        ("route-detail", "with space&amp"),
    ],
)
def test_it_makes_what_reverse_makes(name: str, arg: object) -> None:
    assert url_maker(name)(arg) == reverse(name, args=[arg])


@pytest.mark.parametrize(
    ("first", "second"),
    [("support-chat", 1), ("a.b_c~d", 987654), ("ünïcode", 12), ("with space&amp", 3)],
)
def test_the_two_argument_maker_makes_what_reverse_makes(first: str, second: int) -> None:
    assert url_maker2("version-detail")(first, second) == reverse("version-detail", args=[first, second])


@pytest.mark.parametrize(("slug", "number"), [("support-chat", 1), ("a.b_c~d", 126), ("ünïcode", 7)])
def test_it_keeps_the_leading_arguments_it_is_given(slug: str, number: int) -> None:
    assert url_maker("version-detail", slug)(number) == reverse("version-detail", args=[slug, number])
