"""The database cache's table (settings.CACHES' `default` with DEBUG off and no CACHE_URL):
throttle counts and the login-attempt limit. Created whatever settings the migrations run
under: `createcachetable` would create tables only for the caches the current settings
configure, so a database migrated with DEBUG on (or CACHE_URL set) would have none when a
web process with DEBUG off came to use it. Harmless where Redis or memory holds the cache."""

from django.conf import settings
from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations


def create_cache_table(apps, schema_editor):  # type: ignore[no-untyped-def]
    command = CreateCacheTable()
    command.verbosity = 0  # create_table reads it; handle() would set it
    command.create_table(schema_editor.connection.alias, settings.DATABASE_CACHE_TABLE, False)


class Migration(migrations.Migration):
    dependencies = [("specpact", "0001_idempotency_keys")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
