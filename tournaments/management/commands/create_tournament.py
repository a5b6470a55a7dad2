"""``manage.py create_tournament NAME --club SLUG --game GAME --rounds N [options]``.

Options: ``--series KIND:TARGET[:P1,P2,…]`` (``first_to:3``, ``losses:2``,
``place_points:3`` or ``place_points:3:3,2,1,0``; default the game's),
``--deal-limit M`` (a ``first_to`` series only: at most M deals, then placed by wins),
``--table-min``, ``--table-max``, ``--table-preferred``, ``--seating
mixing|swiss``, ``--turn-seconds``, ``--timeouts-to-bot``, ``--duplicate-deals``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, ngettext

from engine.registry import get_game
from engine.series import SeriesFormat
from tournaments.management.language import LanguageCommand
from tournaments.models import Club, Tournament
from tournaments.services import ServiceError, create_tournament


def parse_series(text: str) -> SeriesFormat:
    """``KIND:TARGET`` or ``place_points:TARGET:P1,P2,…`` as a series format."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError("expected KIND:TARGET")
        points = tuple(float(p) for p in parts[2].split(",")) if len(parts) == 3 else None
        return SeriesFormat(kind=parts[0], target=int(parts[1]), points=points)  # type: ignore[arg-type]
    except ValueError as error:
        raise CommandError(
            gettext(
                "--series %(text)r: %(error)s; write first_to:3, "
                "losses:2, place_points:3 or place_points:3:3,2,1,0"
            )
            % {"text": text, "error": error}
        ) from None


def with_deal_limit(series: SeriesFormat | None, game: str, limit: int) -> SeriesFormat:
    """``series`` (default: the game's) with the organiser's deal limit."""
    try:
        base = series or get_game(game).default_series
        return dataclasses.replace(base, deal_limit=limit)
    except (KeyError, ValueError) as error:
        raise CommandError(
            gettext("--deal-limit %(limit)s: %(error)s") % {"limit": limit, "error": error}
        ) from None


class Command(LanguageCommand):
    help = "Create a tournament: game, rounds, series, table sizes, seating, clock, duplicates."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--club", required=True, help="the club's slug")
        parser.add_argument("--game", required=True, help="give_away, old_maid, bhabhi, …")
        parser.add_argument("--rounds", type=int, required=True)
        parser.add_argument("--series", default=None, help="e.g. losses:2 (default: the game's)")
        parser.add_argument(
            "--deal-limit", type=int, default=None, help="first_to only (default: no limit)"
        )
        parser.add_argument("--table-min", type=int, default=None)
        parser.add_argument("--table-max", type=int, default=None)
        parser.add_argument("--table-preferred", type=int, default=None)
        parser.add_argument("--seating", default="mixing", help="mixing or swiss")
        parser.add_argument("--turn-seconds", type=int, default=None, help="default: no clock")
        parser.add_argument("--timeouts-to-bot", type=int, default=0)
        parser.add_argument("--duplicate-deals", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        club = Club.objects.filter(slug=opts["club"]).first()
        if club is None:
            known = ", ".join(Club.objects.values_list("slug", flat=True)) or "none yet"
            raise CommandError(
                gettext("there is no club %(value)r (clubs: %(known)s); add one in the admin")
                % {"value": opts["club"], "known": known}
            )
        series = parse_series(opts["series"]) if opts["series"] else None
        if opts["deal_limit"] is not None:
            series = with_deal_limit(series, opts["game"], opts["deal_limit"])
        try:
            tournament = create_tournament(
                club,
                opts["name"],
                opts["game"],
                opts["rounds"],
                series=series,
                table_min=opts["table_min"],
                table_max=opts["table_max"],
                table_preferred=opts["table_preferred"],
                seating_mode=opts["seating"],
                turn_seconds=opts["turn_seconds"],
                timeouts_to_bot=opts["timeouts_to_bot"],
                duplicate_deals=opts["duplicate_deals"],
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(summary(tournament))


def summary(tournament: Tournament) -> str:
    """The created tournament's settings in a line, in the organiser's language."""
    fmt = tournament.series
    series = gettext("series %(kind)s:%(target)s") % fmt
    if fmt.get("deal_limit"):
        limit = fmt["deal_limit"]
        series += " " + ngettext("at most %(limit)s deal", "at most %(limit)s deals", limit) % {
            "limit": limit
        }
    tables = gettext("tables %(low)s–%(high)s") % {
        "low": tournament.table_min,
        "high": tournament.table_max,
    }
    if tournament.table_preferred:
        tables += " " + gettext("preferring %(size)s") % {"size": tournament.table_preferred}
    parts = [
        tournament.game,
        ngettext("%(count)s round", "%(count)s rounds", tournament.rounds)
        % {"count": tournament.rounds},
        series,
        tables,
        gettext("%(mode)s seating") % {"mode": tournament.get_seating_mode_display()},
    ]
    if tournament.duplicate_deals:
        parts.append(gettext("duplicate deals"))
    return gettext("created tournament %(id)s: %(name)s (%(settings)s)") % {
        "id": tournament.pk,
        "name": tournament.name,
        "settings": ", ".join(parts),
    }
