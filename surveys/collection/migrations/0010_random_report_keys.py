"""Reports get random keys (models.keys.RandomKey) instead of auto-incremented ones, and the
reports and responses stored so far are re-keyed, so no key or row order follows arrival order.

The re-keying works with frozen copies of this release's KEY_BITS, random_key and the rewrite in key
order (surveys.collection.models.keys and .arrival_order): a later change to those modules cannot
change what this migration does. The field itself names the live RandomKey and random_key, as
Django's migration state needs."""

import secrets

from django.db import connection, migrations

import surveys.collection.models.keys

BATCH = 50_000
KEY_BITS = 62


def random_key():
    """62 random bits with bit 62 set: never one of the small sequential keys of before."""
    return secrets.randbits(KEY_BITS) | 1 << KEY_BITS


def rewrite_in_key_order(using, tables):
    """PostgreSQL: each table rewritten in primary-key order (CLUSTER), then its visibility map set;
    SQLite: VACUUM, which drops the freed pages that may still hold rows as they were."""
    if using.vendor == "postgresql":
        with using.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # CLUSTER refuses pending trigger events
            for table in tables:
                constraints = using.introspection.get_constraints(cursor, table)
                index = next(name for name, about in constraints.items() if about["primary_key"])
                cursor.execute(f"CLUSTER {using.ops.quote_name(table)} USING {using.ops.quote_name(index)}")
                vacuum = "ANALYZE" if using.in_atomic_block else "VACUUM (ANALYZE)"
                cursor.execute(f"{vacuum} {using.ops.quote_name(table)}")
    elif using.vendor == "sqlite" and not using.in_atomic_block:  # VACUUM cannot run in a transaction
        with using.cursor() as cursor:
            cursor.execute("VACUUM")


def rekey(apps, schema_editor):
    """Old keys are below 2**62 and new ones above, so each batch takes the next old ones; on SQLite
    the responses' rowids too. Then PostgreSQL rewrites both tables in key order."""
    using = schema_editor.connection if schema_editor else connection
    tables = [apps.get_model("collection", name)._meta.db_table for name in ("Response", "Report")]
    response, report = (using.ops.quote_name(table) for table in tables)
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
    rewrite_in_key_order(using, tables)


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
