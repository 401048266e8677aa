from django.db import migrations

# PostgreSQL refuses edits of stored workloads, whatever the client: a workload is named
# by its digest, so an edit in place would silently change what runs measured on. The
# only change allowed is deleting a version's content (the privacy deletion, which keeps
# the version row and a tombstone in the audit trail).
FORWARD = """
CREATE OR REPLACE FUNCTION specpact_workload_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'workloads are immutable (% on %)', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER workload_version_immutable
    BEFORE UPDATE OR DELETE ON workloads_app_workloadversion
    FOR EACH ROW EXECUTE FUNCTION specpact_workload_immutable();
CREATE TRIGGER workload_use_immutable
    BEFORE UPDATE OR DELETE ON workloads_app_workloaduse
    FOR EACH ROW EXECUTE FUNCTION specpact_workload_immutable();
CREATE TRIGGER workload_uploader_immutable
    BEFORE UPDATE OR DELETE ON workloads_app_workloaduploader
    FOR EACH ROW EXECUTE FUNCTION specpact_workload_immutable();
CREATE TRIGGER workload_content_immutable
    BEFORE UPDATE ON workloads_app_workloadcontent
    FOR EACH ROW EXECUTE FUNCTION specpact_workload_immutable();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS workload_version_immutable ON workloads_app_workloadversion;
DROP TRIGGER IF EXISTS workload_use_immutable ON workloads_app_workloaduse;
DROP TRIGGER IF EXISTS workload_uploader_immutable ON workloads_app_workloaduploader;
DROP TRIGGER IF EXISTS workload_content_immutable ON workloads_app_workloadcontent;
DROP FUNCTION IF EXISTS specpact_workload_immutable();
"""


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        # Through a cursor without parameters: the function body's `%` is PL/pgSQL's.
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(FORWARD)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("workloads_app", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
