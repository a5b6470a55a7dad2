"""Upgrades: what a migration may add while the version before it still serves.

docs/operations.md: an upgrade runs ``migrate`` while the old processes still serve
(compose starts the new ones after it).  Those processes insert rows without the
columns added since their version, so such a column needs a default the database
itself applies (``db_default``) or must take NULL; Django's ``default`` alone is
applied by the new code only, and the old processes' inserts failed (a round seated,
a game dealt) until they were replaced.
"""

from __future__ import annotations

import pytest
from django.db import connections
from django.db.migrations.loader import MigrationLoader

pytestmark = pytest.mark.django_db(databases=["default", "sqlite", "postgres"])

APPS = ("tournaments", "events")


def _columns(state: object, app: str) -> dict[str, set[str]]:
    """Each table of ``app`` in a project state: its columns."""
    found: dict[str, set[str]] = {}
    for model in state.apps.get_app_config(app).get_models():  # type: ignore[attr-defined]
        meta = model._meta
        found[meta.db_table] = {f.column for f in meta.local_concrete_fields}
    return found


def _added_columns(alias: str) -> dict[tuple[str, str], str]:
    """Every column a migration added to a table that existed before it: (table, column)
    -> the migration."""
    loader = MigrationLoader(connections[alias])
    added: dict[tuple[str, str], str] = {}
    for app in APPS:
        leaf = max(key for key in loader.graph.leaf_nodes() if key[0] == app)
        plan = [node for node in loader.graph.forwards_plan(leaf) if node[0] == app]
        before: dict[str, set[str]] = {}
        for node in plan:
            after = _columns(loader.project_state(node), app)
            for table, columns in after.items():
                if table in before:
                    for column in columns - before[table]:
                        added[(table, column)] = node[1]
            before = after
    return added


def test_a_column_added_to_an_existing_table_takes_null_or_a_database_default(
    store_alias: str,
) -> None:
    connection = connections[store_alias]
    connection.ensure_connection()
    missing = []
    with connection.cursor() as cursor:
        for (table, column), migration in sorted(_added_columns(store_alias).items()):
            described = {
                d.name: d for d in connection.introspection.get_table_description(cursor, table)
            }
            if column not in described:
                continue  # dropped since
            info = described[column]
            if not info.null_ok and info.default is None:
                missing.append(f"{table}.{column} (added by {migration})")
    assert missing == [], "NOT NULL without a database default: " + ", ".join(missing)
