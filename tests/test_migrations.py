"""Migrations run cleanly on the configured database, both ways, and match the models.

Nothing here names a migration: the apps and their migrations are read from the loader, so
the tests keep applying as migrations are added.
"""

import io

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

# The project's own apps that have migrations (today: collection), read without a database.
OUR_APPS = sorted(label for label in MigrationLoader(None, ignore_no_migrations=True).migrated_apps
                  if apps.get_app_config(label).name.startswith("surveys."))


def applied(app_label):
    return {name for app, name in MigrationRecorder(connection).applied_migrations() if app == app_label}


def on_disk(app_label):
    return {name for app, name in MigrationExecutor(connection).loader.disk_migrations if app == app_label}


def tables(app_label):
    return {model._meta.db_table for model in apps.get_app_config(app_label).get_models()
            if model._meta.managed and not model._meta.proxy}


def test_the_project_has_migrated_apps():
    assert "collection" in OUR_APPS


@pytest.mark.slow
@pytest.mark.parametrize("app_label", OUR_APPS)
def test_migrations_unapply_to_zero_and_reapply(transactional_db, app_label):
    assert applied(app_label) == on_disk(app_label)

    call_command("migrate", app_label, "zero", verbosity=0, interactive=False)
    assert applied(app_label) == set()
    assert tables(app_label).isdisjoint(connection.introspection.table_names())

    call_command("migrate", verbosity=0, interactive=False)
    assert applied(app_label) == on_disk(app_label)
    assert tables(app_label) <= set(connection.introspection.table_names())
    # Nothing is left to apply, for any app.
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []


def test_the_models_need_no_new_migration(db):
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1, stdout=out, stderr=out)
    except SystemExit as exit:  # --check exits 1 when a migration is missing
        pytest.fail(f"makemigrations --check exited {exit.code}: models changed without a migration:\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()
