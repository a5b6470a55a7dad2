"""``manage.py grant_app_role ROLE``: the application's database role (events/roles.py)."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS

from events.roles import RoleError, grant_app_role


class Command(BaseCommand):
    help = (
        "Run as the database owner after migrate: create or update ROLE, the role the web"
        " processes and workers connect as, with SELECT and INSERT only on the event table."
        " Its password comes from PARLOUR_APP_DB_PASSWORD (unset: left as it is)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="the application's role, e.g. parlour_app")
        parser.add_argument(
            "--database", default=DEFAULT_DB_ALIAS, help="the database alias (default: default)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get("PARLOUR_APP_DB_PASSWORD") or None
        try:
            statements = grant_app_role(options["role"], password, using=options["database"])
        except RoleError as error:
            raise CommandError(str(error)) from None
        for statement in statements:
            self.stdout.write(statement)
        self.stdout.write(self.style.SUCCESS(f"{options['role']} may now run Parlour"))
