from django.db import migrations

# A decision's proposed_by must be its release's real proposer, or the four-eyes CHECK
# (decided_by <> proposed_by) could be dodged by writing someone else's id there. Django
# has no composite foreign keys, so PostgreSQL gets one here, on the (id, proposed_by)
# unique constraint of the release.
FORWARD = """
ALTER TABLE releases_app_decision
    ADD CONSTRAINT decision_proposer_is_release_proposer
    FOREIGN KEY (release_id, proposed_by_id)
    REFERENCES releases_app_release (id, proposed_by_id)
    DEFERRABLE INITIALLY IMMEDIATE;
"""
BACKWARD = "ALTER TABLE releases_app_decision DROP CONSTRAINT IF EXISTS decision_proposer_is_release_proposer;"


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("releases_app", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
