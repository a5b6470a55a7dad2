"""``manage.py play_bots [--tournament T] [--next-rounds]``: bots play without a worker.

Runs :func:`tournaments.workers.autoplay.run_bots` over every running game (of one
tournament, or all) until no bot can move: games wait for a person, or are
over.  With ``--tournament`` and ``--next-rounds`` it also starts each next
round (checking in every active registered player) until the tournament ends
or a person must act.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, ngettext

from tournaments.management.language import LanguageCommand
from tournaments.models import Game, Round, Tournament
from tournaments.services import ServiceError, begin_round, find_tournament, start_round


def run_all_bots(tournament: Tournament | None = None) -> int:
    """Bot moves in every running game (of ``tournament``) until none moves; the count.

    A game that ends may deal the table's next game (the series hook): the
    next pass plays it.
    """
    from tournaments.workers.autoplay import run_bots

    total = 0
    while True:
        running = Game.objects.filter(status=Game.Status.RUNNING)
        if tournament is not None:
            running = running.filter(table__round__tournament=tournament)
        moved = sum(run_bots(pk) for pk in running.values_list("pk", flat=True))
        if moved == 0:
            return total
        total += moved


def play_tournament(tournament: Tournament, *, next_rounds: bool = False) -> int:
    """Play ``tournament``'s bots; with ``next_rounds`` start rounds until it is over or stuck."""
    total = 0
    while True:
        moved = run_all_bots(tournament)
        total += moved
        if not next_rounds:
            return total
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            return total
        last = Round.objects.filter(tournament=tournament).order_by("number").last()
        if last is not None and last.status == Round.Status.PLAYING:
            if moved == 0:
                return total  # a person is to act: nothing more to do without them
            continue  # a round begun meanwhile (a worker advancing a bot tournament)
        if last is not None and last.status == Round.Status.SEATED:
            begin_round(last)
        else:
            begin_round(start_round(tournament, auto_check_in=True))


def bot_moves(count: int) -> str:
    return ngettext("%(count)s bot move", "%(count)s bot moves", count) % {"count": count}


class Command(LanguageCommand):
    help = "Play bot moves in running games until no bot can move (no worker needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", default=None, help="only this tournament (id or name)")
        parser.add_argument(
            "--next-rounds",
            action="store_true",
            help="with --tournament: start each next round until the tournament ends",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            if opts["tournament"] is None:
                if opts["next_rounds"]:
                    raise CommandError(gettext("--next-rounds needs --tournament"))
                moves = run_all_bots()
                self.stdout.write(
                    gettext("%(moves)s; no bot can move now") % {"moves": bot_moves(moves)}
                )
                return
            tournament = find_tournament(opts["tournament"])
            moves = play_tournament(tournament, next_rounds=opts["next_rounds"])
        except ServiceError as error:
            raise CommandError(error.message) from None
        tournament.refresh_from_db()
        running = Game.objects.filter(
            status=Game.Status.RUNNING, table__round__tournament=tournament
        ).count()
        self.stdout.write(
            ngettext(
                "%(moves)s in %(tournament)s; it is %(status)s, %(running)s game(s)"
                " waiting for a person",
                "%(moves)s in %(tournament)s; it is %(status)s, %(running)s game(s)"
                " waiting for a person",
                running,
            )
            % {
                "moves": bot_moves(moves),
                "tournament": tournament.name,
                "status": tournament.get_status_display(),
                "running": running,
            }
        )
