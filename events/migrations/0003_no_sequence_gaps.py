"""The database refuses an event that would leave a gap in its stream's sequence.

Every stream is numbered 1, 2, 3 … (``event_stream_sequence`` makes each number
unique, ``event_sequence_from_1`` keeps them positive); here the database also
refuses an event numbered ``n > 1`` whose stream has no event ``n - 1``, so a
stream starts at 1 and has no holes, whoever writes it (the store's append always
does this; an application role that bypassed the store could not do otherwise).

PostgreSQL: an AFTER INSERT statement trigger looks at the statement's new rows
(a transition table) once all of them are in, so an append of several events in
one INSERT is checked as a whole; a row's predecessor is one probe of the
``(stream, sequence)`` index.  SQLite: a BEFORE INSERT row trigger (SQLite inserts
the rows of one statement one after another, each seeing those before it).

As 0002 notes, SQLite rebuilds a table it alters, without its triggers: a later
migration that alters this table must install this one again.
"""

from django.db import migrations

TABLE = "events_event"

POSTGRES_INSTALL = [
    f"""CREATE FUNCTION events_event_refuse_gap() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    gap record;
BEGIN
    SELECT n.stream, n.sequence INTO gap FROM new_events n
    WHERE n.sequence > 1 AND NOT EXISTS (
        SELECT 1 FROM {TABLE} e WHERE e.stream = n.stream AND e.sequence = n.sequence - 1
    )
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'events are gapless: % #% has no event % before it',
            gap.stream, gap.sequence, gap.sequence - 1
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$""",
    f"""CREATE TRIGGER events_event_no_gap
    AFTER INSERT ON {TABLE} REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION events_event_refuse_gap()""",
]

POSTGRES_REMOVE = [
    f"DROP TRIGGER events_event_no_gap ON {TABLE}",
    "DROP FUNCTION events_event_refuse_gap()",
]

SQLITE_INSTALL = [
    f"""CREATE TRIGGER events_event_no_gap BEFORE INSERT ON {TABLE}
WHEN NEW.sequence > 1 AND NOT EXISTS (
    SELECT 1 FROM {TABLE} WHERE stream = NEW.stream AND sequence = NEW.sequence - 1
)
BEGIN SELECT RAISE(ABORT, 'events are gapless: an INSERT leaving a gap is refused'); END""",
]

SQLITE_REMOVE = ["DROP TRIGGER events_event_no_gap"]


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
    dependencies = [("events", "0002_immutable_events")]

    operations = [migrations.RunPython(install, remove)]
