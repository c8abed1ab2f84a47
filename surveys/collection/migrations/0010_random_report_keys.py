"""Reports get random keys (models.keys.RandomKey) instead of auto-incremented ones, and the
reports and responses stored so far are re-keyed, so no key or row order follows arrival order."""

from django.db import connection, migrations

import surveys.collection.models.keys
from surveys.collection.arrival_order import rewrite_in_key_order
from surveys.collection.models.keys import KEY_BITS, random_key

BATCH = 50_000


def rekey(apps, schema_editor):
    """Old keys are below 2**62 and new ones above, so each batch takes the next old ones; on SQLite
    the responses' rowids too. Then PostgreSQL rewrites both tables in key order."""
    using = schema_editor.connection if schema_editor else connection
    report = using.ops.quote_name(apps.get_model("collection", "Report")._meta.db_table)
    response = using.ops.quote_name(apps.get_model("collection", "Response")._meta.db_table)
    targets = [(report, "id")] + ([(response, "rowid")] if using.vendor == "sqlite" else [])
    with using.cursor() as cursor:
        for table, key in targets:
            while True:
                cursor.execute(f"SELECT {key} FROM {table} WHERE {key} < %s LIMIT {BATCH}", [1 << KEY_BITS])
                old = [row[0] for row in cursor.fetchall()]
                if not old:
                    break
                cursor.executemany(f"UPDATE {table} SET {key} = %s WHERE {key} = %s",
                                   [(random_key(), key_) for key_ in old])
    rewrite_in_key_order(using)


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0009_restamp_versions_with_sampler_integers'),
    ]

    operations = [
        migrations.AlterField(
            model_name='report',
            name='id',
            field=surveys.collection.models.keys.RandomKey(default=surveys.collection.models.keys.random_key,
                                                           editable=False, primary_key=True, serialize=False),
        ),
        migrations.RunPython(rekey, migrations.RunPython.noop),
    ]
