"""Workloads are immutable in the model and in PostgreSQL (triggers, migration 0002):
only a version's content can be deleted."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from tests.workloads.conftest import client_for, upload
from workloads_app.models import WorkloadContent, WorkloadVersion

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE workloads_app_workloadversion SET requests = 1",
        "DELETE FROM workloads_app_workloadversion",
        "UPDATE workloads_app_workloadcontent SET data = 'x'::bytea",
        "DELETE FROM workloads_app_workloaduploader",
    ],
)
def test_the_database_refuses_edits(operator: Any, sql: str) -> None:
    upload(client_for(operator))
    with (
        pytest.raises(IntegrityError, match="workloads are immutable"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)


def test_the_model_refuses_a_second_save_and_content_can_only_be_deleted(operator: Any) -> None:
    upload(client_for(operator))
    version = WorkloadVersion.objects.get()
    version.requests = 1
    with pytest.raises(ValueError, match="immutable"):
        version.save()
    WorkloadContent.objects.filter(version=version).delete()
    assert WorkloadVersion.objects.filter(pk=version.pk).exists()
