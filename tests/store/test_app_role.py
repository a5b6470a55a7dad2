"""The event store is immutable against its own application, on PostgreSQL.

The application connects as the role ``manage.py grant_app_role`` sets up: it may
SELECT and INSERT on the event table and nothing more.  Here that role, on a
connection of its own, tries every way issue 17 found to undo immutability; the
suite's own connection stays the owner (a superuser), which the flush between
tests needs.  The role's work is rolled back, so nothing it wrote stays.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from events.roles import RoleError, grant_app_role
from events.store import NewEvent, append

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres", "sqlite"]),
]

PG = "postgres"
INSERT = (
    "INSERT INTO events_event (stream, sequence, type, version, payload, cause_kind, cause_id,"
    " recorded_at, command_hash, batch_size) VALUES"
    " (%s, %s, 'move', 1, '{}', 'seat', '0', now(), '', 1)"
)


@pytest.fixture
def app_role() -> Iterator[str]:
    """The application's role on the test database (dropped afterwards)."""
    settings = connections[PG].settings_dict
    role = f"{settings['NAME']}_app"[:63]
    grant_app_role(role, using=PG)
    yield role
    with connections[PG].cursor() as cursor:
        cursor.execute(f'DROP OWNED BY "{role}"')
        cursor.execute(f'DROP ROLE "{role}"')


@pytest.fixture
def as_app(app_role: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection as the application's role, in one transaction rolled back at the end."""
    settings = connections[PG].settings_dict
    connection = psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=int(settings["PORT"] or 5432),
        dbname=settings["NAME"],
        user=app_role,
        password=settings.get("PASSWORD") or None,
    )
    try:
        yield connection
    finally:
        connection.rollback()
        connection.close()


def refused(connection: psycopg.Connection[Any], sql: str, *params: Any) -> str:
    """Run ``sql`` in a savepoint that must fail; the database's reason."""
    with pytest.raises(psycopg.Error) as error, connection.transaction():
        connection.execute(sql, params or None)
    return str(error.value)


def test_the_application_role_may_only_read_and_append_events(
    app_role: str, as_app: psycopg.Connection[Any]
) -> None:
    append("s", [NewEvent("move", {"n": 1}, "seat", "0")], expected_sequence=0, using=PG)
    assert as_app.execute("SELECT count(*) FROM events_event").fetchone() == (1,)
    as_app.execute(INSERT, ["s", 2])  # the next event: allowed
    as_app.execute(INSERT, ["t", 1])  # a new stream from 1: allowed
    assert "permission denied" in refused(as_app, "UPDATE events_event SET type = 'x'")
    assert "permission denied" in refused(as_app, "DELETE FROM events_event")
    assert "permission denied" in refused(as_app, "TRUNCATE events_event")
    assert "permission denied" in refused(as_app, "SET LOCAL session_replication_role = replica")
    assert "permission denied" in refused(as_app, "SET session_replication_role = replica")
    for sql in (
        "ALTER TABLE events_event DISABLE TRIGGER events_event_no_update_delete",
        "ALTER TABLE events_event DISABLE TRIGGER ALL",
        "DROP TRIGGER events_event_no_update_delete ON events_event",
        "DROP TRIGGER events_event_no_gap ON events_event",
        "ALTER TABLE events_event OWNER TO CURRENT_USER",
    ):
        assert "must be owner" in refused(as_app, sql), sql
    owner = connections[PG].settings_dict["USER"]
    assert "permission denied" in refused(as_app, f'SET ROLE "{owner}"')
    assert "gapless" in refused(as_app, INSERT, "s", 4)  # 3 is missing
    assert "gapless" in refused(as_app, INSERT, "u", 2)  # a stream starts at 1
    assert as_app.execute(
        "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
    ).fetchone() == (False,)
    # Its own rows are as immutable as anyone's.
    assert "permission denied" in refused(as_app, "DELETE FROM events_event WHERE stream = 't'")


def test_the_owner_is_refused_a_gap_too(app_role: str) -> None:
    with pytest.raises(Exception, match="gapless"), connections[PG].cursor() as cursor:
        cursor.execute(INSERT, ["g", 2])


def test_the_application_role_may_change_the_other_tables(
    as_app: psycopg.Connection[Any],
) -> None:
    as_app.execute("INSERT INTO tournaments_club (name, slug, created_at) VALUES ('c', 'c', now())")
    as_app.execute("UPDATE tournaments_club SET name = 'd' WHERE slug = 'c'")
    as_app.execute("DELETE FROM tournaments_club WHERE slug = 'c'")


def test_a_superuser_or_the_owner_is_refused_as_the_application_role() -> None:
    owner = connections[PG].settings_dict["USER"]
    with pytest.raises(RoleError, match="connects as"):
        grant_app_role(owner, using=PG)


def test_the_command_prints_what_it_granted(
    app_role: str, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("grant_app_role", app_role, database=PG)
    assert "GRANT SELECT, INSERT ON" in capsys.readouterr().out


def test_a_role_is_given_its_password_on_a_connection_that_binds_on_the_server() -> None:
    """compose's shape: the role has a password (PostgreSQL binds no parameter in CREATE
    ROLE, and Parlour's connections bind parameters on the server)."""
    settings = connections[PG].settings_dict
    assert settings["OPTIONS"].get("server_side_binding") is True
    role = f"{settings['NAME']}_pw"[:63]
    try:
        done = grant_app_role(role, "it's a s3cret", using=PG)
        assert "PASSWORD '…'" in done[0] and "s3cret" not in " ".join(done)
        grant_app_role(role, "another", using=PG)  # altered, not created, the second time
        with connections[PG].cursor() as cursor:
            cursor.execute(
                "SELECT rolpassword IS NOT NULL FROM pg_authid WHERE rolname = %s", [role]
            )
            assert cursor.fetchone() == (True,)
    finally:
        with connections[PG].cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_the_command_refuses_sqlite_with_a_reason() -> None:
    with pytest.raises(CommandError, match="PostgreSQL"):
        call_command("grant_app_role", "parlour_app", database="sqlite")
