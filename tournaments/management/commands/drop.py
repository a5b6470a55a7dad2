"""``manage.py drop TOURNAMENT PLAYER``: a player leaves the tournament between rounds."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from tournaments.management.language import LanguageCommand
from tournaments.services import ServiceError, drop, find_player, find_tournament


class Command(LanguageCommand):
    help = "Drop a player out of a tournament between rounds (their results stay)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", help="tournament id (or exact name)")
        parser.add_argument("player", help="player name (or id)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tournament = find_tournament(opts["tournament"])
            player = find_player(tournament.club, opts["player"])
            registration = drop(tournament, player)
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            gettext(
                "%(player)s dropped out of %(tournament)s after round "
                "%(dropped_after)s; their results stay in the standings"
            )
            % {
                "player": player.name,
                "tournament": tournament.name,
                "dropped_after": registration.dropped_after,
            }
        )
