from django.db import migrations

# PostgreSQL refuses edits of a stored contract version, whatever the client: a version is
# identified by its digest, so an edit in place would silently change history.
FORWARD = """
CREATE OR REPLACE FUNCTION specpact_contract_version_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'contract versions are immutable (% on contracts_app_contractversion)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER contract_version_immutable
    BEFORE UPDATE OR DELETE ON contracts_app_contractversion
    FOR EACH ROW EXECUTE FUNCTION specpact_contract_version_immutable();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS contract_version_immutable ON contracts_app_contractversion;
DROP FUNCTION IF EXISTS specpact_contract_version_immutable();
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
    dependencies = [("contracts_app", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
