"""``manage.py create_club NAME --organiser USERNAME [--email E] [--password P]``.

Creates a club and its first organiser: a new login (its password from
``--password``, or asked for twice at the terminal), or an existing login made
the club's organiser (its password unchanged).
"""

from __future__ import annotations

import getpass
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from tournaments.management.language import LanguageCommand
from tournaments.services import ServiceError, create_club_with_organiser


class Command(LanguageCommand):
    help = "Create a club and its first organiser login (or make an existing login its organiser)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the club's name")
        parser.add_argument("--organiser", required=True, help="the organiser's user name")
        parser.add_argument("--email", default="", help="the organiser's e-mail (a new login)")
        parser.add_argument(
            "--password", default=None, help="the new login's password (asked for if not given)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        username = opts["organiser"]
        password = opts["password"]
        if password is None and not User.objects.filter(username=username).exists():
            password = getpass.getpass(gettext("Password for %(user)s: ") % {"user": username})
            if getpass.getpass(gettext("The same password again: ")) != password:
                raise CommandError(gettext("The two passwords differ: nothing was created."))
        try:
            club, user = create_club_with_organiser(
                opts["name"], username, password or "", email=opts["email"]
            )
        except ServiceError as error:
            raise CommandError(error.message) from error
        self.stdout.write(
            gettext("Created the club %(club)s (%(slug)s); %(user)s organises it.")
            % {"club": club.name, "slug": club.slug, "user": user.get_username()}
        )
