"""`{% release_evidence release as evidence %}`: the release page's evidence context, so the
releases app's template includes `releases/_evidence.html` without its view knowing
about benchmarks."""

from __future__ import annotations

from typing import Any

from django import template

from benchmarks_app.views.evidence import release_evidence as build

register = template.Library()


@register.simple_tag
def release_evidence(release: Any) -> dict[str, Any]:
    return build(release)
