"""A run result's payload is TOASTed with lz4 instead of PostgreSQL's default pglz.

Measured on a 3.5 MiB result (benchmarks/result_upload.py, issue 26 point 5): the INSERT
took 0.34-0.48 s with pglz and 0.14-0.18 s with lz4, for about the same stored size (a
result's jsonb barely compresses either way). `ALTER COLUMN ... SET COMPRESSION` is
PostgreSQL 14+ ("SET COMPRESSION compression_method ... pglz or lz4", docs: ALTER TABLE;
lz4 needs a server built --with-lz4, as Debian's and the official images are); rows
already stored keep their compression and their value. A server without lz4 keeps pglz
(the DO block's handler), other databases are left as they are.
"""

from django.db import migrations

_SET = """
DO $$
BEGIN
    ALTER TABLE benchmarks_app_runresult ALTER COLUMN payload SET COMPRESSION {method};
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not built into this server: run results stay pglz-compressed';
END $$;
"""


def _compression(method: str):  # type: ignore[no-untyped-def]
    def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(_SET.format(method=method))

    return apply


class Migration(migrations.Migration):
    dependencies = [("benchmarks_app", "0006_run_progress_steps")]

    operations = [migrations.RunPython(_compression("lz4"), _compression("pglz"))]
