"""The application's own PostgreSQL role: it may read and append events, nothing more.

The web processes and the workers connect as a role that is not a superuser and
owns nothing (docs/operations.md, "Database roles"); migrations run as the
owner.  :func:`grant_app_role`, run as the owner after every ``migrate``
(``manage.py grant_app_role``), creates that role if needed and grants it:

* ``SELECT, INSERT`` on the event table, and nothing else there: no UPDATE,
  DELETE or TRUNCATE, and, not being its owner, no ALTER TABLE (so no
  ``DISABLE TRIGGER``), no DROP TRIGGER; not being a superuser it cannot set
  ``session_replication_role`` to skip the triggers either;
* ``SELECT, INSERT, UPDATE, DELETE`` on every other table (the projections,
  sessions, tournaments… are the application's to change);
* the use of every sequence (ids).
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorWrapper
from psycopg import sql as pgsql

from events.models import Event


class RoleError(ValueError):
    """The role cannot be the application's: ``message`` says why."""


def grant_app_role(
    role: str, password: str | None = None, *, using: str = DEFAULT_DB_ALIAS
) -> list[str]:
    """Create (or update) ``role`` and grant it the application's rights; the statements run.

    Runs on the connection ``using``, which must be the owner's (or a superuser's).
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        raise RoleError("database roles are PostgreSQL's: SQLite has none to grant")
    quote = connection.ops.quote_name
    name = quote(role)
    table = quote(Event._meta.db_table)
    done: list[str] = []
    with connection.cursor() as cursor:
        _check_role(cursor, role)
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        verb = "ALTER" if cursor.fetchone() else "CREATE"
        attributes = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
        statement = f"{verb} ROLE {name} {attributes}"
        if password:
            # A literal, quoted client-side: PostgreSQL binds no parameter in a utility
            # statement such as CREATE ROLE, and the connection binds on the server.
            literal = pgsql.Literal(password).as_string(connection.connection)
            cursor.execute(f"{statement} PASSWORD {literal}")
            done.append(f"{statement} PASSWORD '…'")
        else:
            cursor.execute(statement)
            done.append(statement)
        cursor.execute("SELECT current_database(), current_schema()")
        database, schema = cursor.fetchone()
        for sql in (
            f"GRANT CONNECT ON DATABASE {quote(database)} TO {name}",
            f"GRANT USAGE ON SCHEMA {quote(schema)} TO {name}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {quote(schema)}"
            f" TO {name}",
            f"REVOKE ALL ON {table} FROM {name}",
            f"GRANT SELECT, INSERT ON {table} TO {name}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {quote(schema)} TO {name}",
        ):
            cursor.execute(sql)
            done.append(sql)
    return done


def _check_role(cursor: CursorWrapper, role: str) -> None:
    """Refuse a role that could undo the store's immutability (or is the one connected)."""
    cursor.execute("SELECT current_user")
    (current,) = cursor.fetchone()
    if role == current:
        raise RoleError(
            f"{role!r} is the role this command connects as (the owner): the application"
            " needs a role of its own; name another"
        )
    cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role])
    found = cursor.fetchone()
    if found and found[0]:
        raise RoleError(
            f"{role!r} is a superuser: it could turn the event table's triggers off;"
            " name a role that is not"
        )
    cursor.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner"
        " WHERE r.rolname = %s",
        [role],
    )
    (owned,) = cursor.fetchone()
    if owned:
        raise RoleError(
            f"{role!r} owns {owned} table(s) or sequence(s): an owner may alter them;"
            " name a role that owns nothing (migrations run as the owner)"
        )
