"""Issue 22 point 6, seen from the page: an operator who did not propose a release cancels
it from the release page (audited, naming whose release it was); a viewer gets no form."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from releases_app.models import Release

pytestmark = pytest.mark.django_db


def test_another_operator_cancels_from_the_release_page(awaiting: Release, operator: Any) -> None:
    assert awaiting.proposed_by != operator
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    html = client.get(f"/releases/{awaiting.pk}/").content.decode()
    assert 'aria-label="Cancel"' in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    lock = re.search(r'aria-label="Cancel".*?name="lock_version" value="(\d+)"', html, re.S)
    assert token and lock
    response = client.post(
        f"/releases/{awaiting.pk}/cancel",
        {"reason": "blocks the hotfix", "lock_version": lock.group(1), "csrfmiddlewaretoken": token.group(1)},
    )
    assert response.status_code == 302
    assert Release.objects.get(pk=awaiting.pk).state == "cancelled"
    event = AuditEvent.objects.get(action="release.cancelled", object_id=str(awaiting.pk))
    assert event.after["proposed_by"] == awaiting.proposed_by.username and event.after["by_proposer"] is False


def test_a_viewer_sees_no_cancel_form_and_is_refused(awaiting: Release, viewer: Any) -> None:
    client = Client()
    client.force_login(viewer)
    assert 'aria-label="Cancel"' not in client.get(f"/releases/{awaiting.pk}/").content.decode()
    client.post(f"/releases/{awaiting.pk}/cancel", {"reason": "no", "lock_version": awaiting.lock_version})
    assert Release.objects.get(pk=awaiting.pk).state == awaiting.state
