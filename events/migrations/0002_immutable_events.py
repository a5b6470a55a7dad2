"""The database enforces that events are never changed or removed.

PostgreSQL: a trigger function refuses UPDATE and DELETE (row triggers) and
TRUNCATE (a statement trigger) on ``events_event``, and the ``tx`` column
defaults to the writing transaction's id, the first half of the global
position (docs/store.md).  SQLite: BEFORE UPDATE and BEFORE DELETE triggers
abort (SQLite has no TRUNCATE; its ``DELETE FROM`` fires the delete trigger).

SQLite rebuilds a table to alter it (copy, drop, rename), and the copy has no
triggers: a later migration that alters this table must install them again.
"""

from django.db import migrations

TABLE = "events_event"

POSTGRES_INSTALL = [
    f"ALTER TABLE {TABLE} ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text::bigint)",
    """CREATE FUNCTION events_event_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % on % is refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$""",
    f"""CREATE TRIGGER events_event_no_update_delete
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION events_event_refuse_change()""",
    f"""CREATE TRIGGER events_event_no_truncate
    BEFORE TRUNCATE ON {TABLE}
    FOR EACH STATEMENT EXECUTE FUNCTION events_event_refuse_change()""",
]

POSTGRES_REMOVE = [
    f"DROP TRIGGER events_event_no_truncate ON {TABLE}",
    f"DROP TRIGGER events_event_no_update_delete ON {TABLE}",
    "DROP FUNCTION events_event_refuse_change()",
    f"ALTER TABLE {TABLE} ALTER COLUMN tx SET DEFAULT 0",
]

SQLITE_INSTALL = [
    f"""CREATE TRIGGER events_event_no_update BEFORE UPDATE ON {TABLE}
BEGIN SELECT RAISE(ABORT, 'events are immutable: UPDATE on {TABLE} is refused'); END""",
    f"""CREATE TRIGGER events_event_no_delete BEFORE DELETE ON {TABLE}
BEGIN SELECT RAISE(ABORT, 'events are immutable: DELETE on {TABLE} is refused'); END""",
]

SQLITE_REMOVE = [
    "DROP TRIGGER events_event_no_update",
    "DROP TRIGGER events_event_no_delete",
]


def install(apps, schema_editor):
    run(schema_editor, POSTGRES_INSTALL, SQLITE_INSTALL)


def remove(apps, schema_editor):
    run(schema_editor, POSTGRES_REMOVE, SQLITE_REMOVE)


def run(schema_editor, postgres, sqlite):
    vendor = schema_editor.connection.vendor
    if vendor in ("postgresql", "sqlite"):
        # params=None: the SQL is sent as written (its % signs are not placeholders).
        for statement in postgres if vendor == "postgresql" else sqlite:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"Parlour's event store runs on PostgreSQL or SQLite, not {vendor}")


class Migration(migrations.Migration):
    dependencies = [("events", "0001_initial")]

    operations = [migrations.RunPython(install, remove)]
