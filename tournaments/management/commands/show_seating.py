"""``manage.py show_seating TOURNAMENT [--round N] [--standings]``.

Prints a round's tables (players in seat order, the first dealer marked ``*``,
each table's state and, once finished, its placings) and its byes; with
``--standings`` also the standings computed from the games' events.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, ngettext

from tournaments.management.language import LanguageCommand
from tournaments.models import Game, Round, Table, TableSeat, Tournament
from tournaments.services import ServiceError, find_tournament
from tournaments.services.queries import game_name
from tournaments.standings import compute_standings, player_names


def seating_lines(round_: Round) -> list[str]:
    """The round's seating in words, one line per table, then the byes."""
    lines = [
        gettext("Round %(number)s: %(status)s")
        % {"number": round_.number, "status": round_.get_status_display()}
    ]
    if round_.commitment:
        lines[0] += "; " + gettext("duplicate deals, seed commitment %(commitment)s") % {
            "commitment": round_.commitment
        }
    if round_.seed:
        lines[0] += ", " + gettext("seed %(seed)s") % {"seed": round_.seed}
    for table in Table.objects.filter(round=round_).order_by("number"):
        seats = TableSeat.objects.filter(table=table).select_related("player").order_by("seat")
        names = {s.seat: s.player.name for s in seats}
        shown = ", ".join(
            f"{seat}{'*' if seat == table.first_dealer else ''} {name}"
            for seat, name in sorted(names.items())
        )
        state = str(table.get_status_display())
        games = Game.objects.filter(table=table).count()
        if table.status == Table.Status.PLAYING:
            state += ", " + gettext("game %(number)s") % {"number": games}
        elif table.placings:
            state += (
                "; "
                + gettext("placings")
                + " "
                + " > ".join(" = ".join(names[s] for s in group) for group in table.placings)
            )
        seats_text = ngettext("%(count)s seat", "%(count)s seats", len(names)) % {
            "count": len(names)
        }
        lines.append(
            "  "
            + gettext("Table %(number)s (%(seats)s; %(state)s): %(players)s")
            % {"number": table.number, "seats": seats_text, "state": state, "players": shown}
        )
    if round_.byes:
        byes = player_names(round_.byes)
        lines.append("  " + gettext("Byes:") + " " + ", ".join(byes[str(p)] for p in round_.byes))
    return lines


def standings_lines(tournament: Tournament) -> list[str]:
    """The standings (from the games' events) as a small table."""
    table = compute_standings(tournament)
    names = player_names(s.player for s in table)
    # The column heads stay as they are: they line up with the fixed-width numbers.
    lines = [
        gettext("Standings:"),
        "  rank  player                points  opp.pts  h2h  last  played  byes",
    ]
    for s in table:
        lines.append(
            f"  {s.rank:>4}  {names.get(s.player, s.player):<20}  {float(s.points):>6.3f}"
            f"  {float(s.opponents_points):>7.3f}  {s.head_to_head:>3}  {s.last_places:>4}"
            f"  {s.played:>6}  {s.byes:>4}{'  dropped' if s.dropped else ''}"
        )
    return lines


class Command(LanguageCommand):
    help = "Print a round's tables (seat order, first dealer) and byes; optionally the standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament", help="tournament id (or exact name)")
        parser.add_argument("--round", type=int, default=None, help="default: the latest round")
        parser.add_argument("--standings", action="store_true", help="print the standings too")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tournament = find_tournament(opts["tournament"])
        except ServiceError as error:
            raise CommandError(error.message) from None
        rounds = Round.objects.filter(tournament=tournament).order_by("number")
        self.stdout.write(
            gettext(
                "%(tournament)s (id %(tournament2)s, %(game)s, %(count)s "
                "of %(rounds)s rounds seated, %(status)s)"
            )
            % {
                "tournament": tournament.name,
                "tournament2": tournament.pk,
                "game": game_name(tournament.game),
                "count": rounds.count(),
                "rounds": tournament.rounds,
                "status": tournament.get_status_display(),
            }
        )
        if opts["round"] is not None:
            round_ = rounds.filter(number=opts["round"]).first()
            if round_ is None:
                raise CommandError(
                    gettext("round %(value)s has not been seated") % {"value": opts["round"]}
                )
        else:
            round_ = rounds.last()
        if round_ is None:
            self.stdout.write(gettext("No round seated yet: start_round seats the first."))
        else:
            self.stdout.write("\n".join(seating_lines(round_)))
        if opts["standings"]:
            self.stdout.write("\n".join(standings_lines(tournament)))
