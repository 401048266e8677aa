from django.db import migrations

# The audit trail is append-only whatever the client: PostgreSQL refuses UPDATE and DELETE
# of a row and TRUNCATE of the table. (A superuser can still disable the trigger; the hash
# chain is what catches that — see audit_app.chain.verify_chain.)
FORWARD = """
CREATE OR REPLACE FUNCTION specpact_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit trail is append-only (% on audit_app_auditevent refused)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE ON audit_app_auditevent
    FOR EACH ROW EXECUTE FUNCTION specpact_audit_append_only();
CREATE TRIGGER audit_event_no_truncate
    BEFORE TRUNCATE ON audit_app_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION specpact_audit_append_only();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_app_auditevent;
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_app_auditevent;
DROP FUNCTION IF EXISTS specpact_audit_append_only();
"""


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit_app", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
