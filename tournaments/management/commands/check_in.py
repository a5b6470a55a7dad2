"""``manage.py check_in TOURNAMENT PLAYER… [--round N] [--all]``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils.translation import gettext

from tournaments.management.language import LanguageCommand
from tournaments.models import Registration
from tournaments.services import (
    ServiceError,
    check_in,
    find_player,
    find_tournament,
    next_round_number,
)


class Command(LanguageCommand):
    help = "Check players in for a round (default: the next round that has not begun)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", help="tournament id (or exact name)")
        parser.add_argument("players", nargs="*", help="player names (or ids)")
        parser.add_argument("--round", type=int, default=None)
        parser.add_argument(
            "--all", action="store_true", help="every active registered player of the round"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tournament = find_tournament(opts["tournament"])
            number = opts["round"] or next_round_number(tournament)
            if opts["all"]:
                players = [
                    r.player
                    for r in Registration.objects.filter(
                        tournament=tournament, dropped_after__isnull=True, from_round__lte=number
                    ).select_related("player")
                ]
            else:
                players = [find_player(tournament.club, p) for p in opts["players"]]
            if not players:
                raise CommandError(gettext("name the players to check in, or use --all"))
            with transaction.atomic():
                for player in players:
                    check_in(tournament, player, number)
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            gettext("checked in for round %(number)s of %(tournament)s: %(players)s")
            % {
                "number": number,
                "tournament": tournament.name,
                "players": ", ".join(p.name for p in players),
            }
        )
