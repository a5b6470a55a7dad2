"""``manage.py start_round TOURNAMENT [--auto-check-in] [--fix P=T]… [--apart A,B]…``.

Also ``[--swap A,B]… [--no-begin]``.

Seats the next round of the checked-in players and deals its tables' first
games.  With ``--no-begin`` the round stays seated: look at it (the command
prints it; ``show_seating`` too), adjust it by running ``start_round`` again
with ``--swap`` or with ``--fix``/``--apart`` (which seat it again), and begin
it by running ``start_round`` without ``--no-begin``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils.translation import gettext

from tournaments.management.commands.show_seating import seating_lines
from tournaments.management.language import LanguageCommand
from tournaments.models import Player, Round, Tournament
from tournaments.services import (
    ServiceError,
    begin_round,
    find_player,
    find_tournament,
    reseat,
    start_round,
    swap_players,
)


def _pair(tournament: Tournament, text: str, option: str) -> tuple[Player, Player]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise CommandError(
            gettext("%(option)s %(text)r: write two player names separated by a comma")
            % {"option": option, "text": text}
        )
    return find_player(tournament.club, parts[0]), find_player(tournament.club, parts[1])


def _fixed(tournament: Tournament, texts: list[str]) -> dict[Player | int, int]:
    fixed: dict[Player | int, int] = {}
    for text in texts:
        name, _, number = text.rpartition("=")
        if not name or not number.strip().isdigit():
            raise CommandError(
                gettext("--fix %(text)r: write PLAYER=TABLE, tables counting from 1")
                % {"text": text}
            )
        fixed[find_player(tournament.club, name)] = int(number)
    return fixed


class Command(LanguageCommand):
    help = "Seat the next round and begin it (or adjust and begin a round already seated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", help="tournament id (or exact name)")
        parser.add_argument(
            "--auto-check-in",
            action="store_true",
            help="check in every active registered player (bots always are)",
        )
        parser.add_argument("--fix", action="append", default=[], help="PLAYER=TABLE (from 1)")
        parser.add_argument("--apart", action="append", default=[], help="PLAYER,PLAYER")
        parser.add_argument(
            "--swap", action="append", default=[], help="PLAYER,PLAYER (a seated round)"
        )
        parser.add_argument("--no-begin", action="store_true", help="seat only; do not deal")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tournament = find_tournament(opts["tournament"])
            with transaction.atomic():
                round_ = self.seat(tournament, opts)
                if not opts["no_begin"]:
                    round_ = begin_round(round_)
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write("\n".join(seating_lines(round_)))
        if opts["no_begin"]:
            self.stdout.write(
                gettext(
                    "The round is seated, not begun: adjust it (--swap, "
                    "--fix, --apart with --no-begin) or begin it "
                    "(start_round without --no-begin)."
                )
            )

    def seat(self, tournament: Tournament, opts: dict[str, Any]) -> Round:
        fixed = _fixed(tournament, opts["fix"])
        apart = [_pair(tournament, t, "--apart") for t in opts["apart"]]
        swaps = [_pair(tournament, t, "--swap") for t in opts["swap"]]
        last = Round.objects.filter(tournament=tournament).order_by("number").last()
        if last is not None and last.status == Round.Status.SEATED:
            if opts["auto_check_in"]:
                raise CommandError(
                    gettext(
                        "round %(last_number)s is seated already: check players "
                        "in with check_in and re-seat it with --fix/--apart"
                    )
                    % {"last_number": last.number}
                )
            if fixed or apart:
                last = reseat(last, fixed=fixed, apart=apart)
        else:
            last = start_round(
                tournament, fixed=fixed, apart=apart, auto_check_in=opts["auto_check_in"]
            )
        for a, b in swaps:
            last = swap_players(last, a, b)
        return last
