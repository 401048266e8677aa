"""The release a page's URL names, for the pages of both apps that show or post to it
(releases_app's decision and endpoint views, dashboard_app's release page)."""

from __future__ import annotations

from django.http import Http404, HttpRequest

from kernel.errors import NotFound
from releases_app import selectors
from releases_app.models import Release


def release_or_404(request: HttpRequest, release_id: int) -> Release:
    """The release, scoped to what the person may see; a page's 404 otherwise."""
    try:
        return selectors.release_get(subject=request, release_id=release_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None
