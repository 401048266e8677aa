"""When the retention setting took a result's raw samples out of its payload
(benchmarks_app/services/retention.py). A column added nullable (no table rewrite on
PostgreSQL) and a partial index of the results that still hold samples, the prune's scan;
plain Django operations, the same on SQLite."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks_app', '0007_result_payload_lz4'),
    ]

    operations = [
        migrations.AddField(
            model_name='runresult',
            name='samples_pruned_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='runresult',
            index=models.Index(condition=models.Q(('samples_pruned_at__isnull', True)), fields=['received_at'], name='result_samples_held'),
        ),
    ]
