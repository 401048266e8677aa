"""The database cache's table (settings.CACHES with DEBUG off and no CACHE_URL): throttle
counts and the login-attempt limit. A no-op for the other backends."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):  # type: ignore[no-untyped-def]
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("specpact", "0001_idempotency_keys")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
