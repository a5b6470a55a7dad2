"""``manage.py simulate GAME --games N --seats K [--seed S] [--out FILE] [--bots L,L,…]``.

Plays complete games with bots in every seat and writes their records as JSON
lines; prints games per second, average moves, and how often each seat won or
lost (seat fairness).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, ngettext

from engine.bots import bot_levels, make_bot
from engine.play import new_deal, play_bots
from engine.record import export_record
from engine.registry import game_ids, get_game
from tournaments.management.language import LanguageCommand


class Command(LanguageCommand):
    help = "Play complete bot games and write their records as JSON lines."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help=f"engine id: {', '.join(game_ids())}")
        parser.add_argument("--games", type=int, default=100)
        parser.add_argument("--seats", type=int, default=4)
        parser.add_argument("--seed", type=int, default=None, help="for a repeatable run")
        parser.add_argument("--out", default=None, help="file for the records (JSON lines)")
        parser.add_argument(
            "--bots",
            default="random",
            help="bot level per seat, comma-separated (one level: every seat)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            game = get_game(opts["game"])
        except KeyError as error:
            raise CommandError(error.args[0]) from None
        seats, count = opts["seats"], opts["games"]
        if not game.min_seats <= seats <= game.max_seats:
            raise CommandError(
                gettext("%(game)s is played by %(min_seats)s to %(max_seats)s players")
                % {"game": game.name, "min_seats": game.min_seats, "max_seats": game.max_seats}
            )
        if count < 1:
            raise CommandError(gettext("--games must be at least 1"))
        levels = opts["bots"].split(",")
        if len(levels) == 1:
            levels *= seats
        if len(levels) != seats:
            raise CommandError(
                gettext("--bots names %(value)s levels for %(seats)s seats")
                % {"value": len(levels), "seats": seats}
            )
        known = bot_levels(game.id)
        for level in levels:
            if level not in known:
                raise CommandError(
                    gettext("no bot level %(level)r for %(id)s; known: %(known)s")
                    % {"level": level, "id": game.id, "known": known}
                )
        rng = random.Random(opts["seed"])
        wins, losses, moves = [0] * seats, [0] * seats, 0
        out = open(opts["out"], "w", encoding="utf-8") if opts["out"] else None  # noqa: SIM115
        started = time.perf_counter()
        try:
            for number in range(count):
                bots = [make_bot(game.id, level) for level in levels]
                played = play_bots(
                    game, new_deal(game, seats, rng, dealer=number % seats), bots, rng
                )
                record = export_record(played.events, players=[f"bot {lv}" for lv in levels])
                moves += len(record["moves"])
                won, lost = game.winners_and_losers(record["result"])
                for seat in won:
                    wins[seat] += 1
                for seat in lost:
                    losses[seat] += 1
                if out is not None:
                    out.write(json.dumps(record, separators=(",", ":")) + "\n")
        finally:
            if out is not None:
                out.close()
        elapsed = time.perf_counter() - started
        self.stdout.write(
            ngettext(
                "%(game)s: %(count)s game, %(seats)s seats, %(rate).1f games/s,"
                " %(moves).1f moves on average",
                "%(game)s: %(count)s games, %(seats)s seats, %(rate).1f games/s,"
                " %(moves).1f moves on average",
                count,
            )
            % {
                "game": game.id,
                "count": count,
                "seats": seats,
                "rate": count / elapsed,
                "moves": moves / count,
            }
        )
        # Column heads above fixed-width numbers: kept as they are in every language.
        self.stdout.write("seat  bot        won    lost")
        for seat in range(seats):
            self.stdout.write(
                f"{seat:>4}  {levels[seat]:<9} {100 * wins[seat] / count:5.1f}% "
                f"{100 * losses[seat] / count:5.1f}%"
            )
        if opts["out"]:
            self.stdout.write(gettext("records written to %(value)s") % {"value": opts["out"]})
