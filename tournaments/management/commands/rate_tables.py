"""``manage.py rate_tables``: rate every finished table that is not rated yet.

Each table rates its players as its series ends (:mod:`tournaments.services.ratings`).
A table finished by an older version during an upgrade, after the migration that began
keeping the ratings, is rated by this (docs/operations.md).  Safe to run at any time,
tables playing or not; it prints how many it rated.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import ngettext

from tournaments.management.language import LanguageCommand
from tournaments.services.ratings import rate_unrated_tables


class Command(LanguageCommand):
    help = "Rate every finished table that is not rated yet (after an upgrade)."

    def handle(self, *args: Any, **opts: Any) -> None:
        rated = rate_unrated_tables()
        self.stdout.write(
            ngettext(
                "rated %(count)s finished table",
                "rated %(count)s finished tables",
                rated,
            )
            % {"count": rated}
        )
