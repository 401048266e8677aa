"""If-Match for release writes: the ETag is `"release-<id>-v<lock_version>"` (the header
is read by kernel/api/etags.py, as for every resource)."""

from __future__ import annotations

import re

from rest_framework.request import Request

from kernel.api.etags import if_match_tags
from kernel.errors import PreconditionFailed

_TAG = re.compile(r'^"release-(\d+)-v(\d+)"$')


def expected_lock(request: Request, release_id: int) -> int | None:
    """The lock version the client last saw, or None without If-Match (or with `*`).
    An If-Match that names no version of this release can't match: 412."""
    tags = if_match_tags(request)
    if tags is None:
        return None
    for tag in tags:
        match = _TAG.match(tag)
        if match and int(match.group(1)) == release_id:
            return int(match.group(2))
    raise PreconditionFailed(
        f"If-Match {request.headers.get('If-Match')} does not match release {release_id}; read it again."
    )
