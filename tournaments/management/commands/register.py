"""``manage.py register TOURNAMENT PLAYER… [--create] [--bot LEVEL] [--from-round N]``.

Registers players (a late entry once rounds have begun).  With ``--create`` a
name the club does not know becomes a new player (a bot of ``--bot LEVEL`` if given).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils.translation import gettext

from tournaments import sql
from tournaments.management.language import LanguageCommand
from tournaments.models import Player
from tournaments.services import (
    ServiceError,
    add_player,
    find_player,
    find_tournament,
    register,
)


class Command(LanguageCommand):
    help = "Register players in a tournament (late entry allowed while rounds remain)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", help="tournament id (or exact name)")
        parser.add_argument("players", nargs="+", help="player names (or ids)")
        parser.add_argument(
            "--create", action="store_true", help="add players the club does not know yet"
        )
        parser.add_argument("--bot", default="", help="with --create: new players are this bot")
        parser.add_argument("--from-round", type=int, default=None)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tournament = find_tournament(opts["tournament"])
            done = []
            with transaction.atomic():
                if opts["create"]:
                    # Before register takes the tournament's lock: the desk's
                    # add-and-register takes the names' lock first, and so must this.
                    sql.lock_player_names(tournament.club_id)
                for ref in opts["players"]:
                    try:
                        player = find_player(tournament.club, ref)
                    except ServiceError:
                        if not opts["create"]:
                            raise
                        player = add_player(tournament.club, ref, bot_level=opts["bot"])
                    registration = register(tournament, player, from_round=opts["from_round"])
                    done.append((player, registration.from_round))
        except ServiceError as error:
            raise CommandError(error.message) from None
        for player, start in done:
            self.stdout.write(
                gettext("registered %(value)s in %(tournament)s from round %(start)s")
                % {"value": describe(player), "tournament": tournament.name, "start": start}
            )


def describe(player: Player) -> str:
    if not player.bot_level:
        return player.name
    return gettext("%(name)s (bot %(level)s)") % {"name": player.name, "level": player.bot_level}
