"""Building games and tournament tables for the worker tests."""

from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth.models import User

from engine.registry import get_game
from events import store
from events.store import StoredEvent
from tournaments import play as service
from tournaments import services
from tournaments.models import Game, Player, Round, TableSeat, Tournament

_names = itertools.count(1)


def bot_context(levels: list[str | None]) -> dict[str, Any]:
    """A game context whose seats are bots of ``levels`` (``None``: a person's seat)."""
    return {
        "seats": [
            {"player": None, "name": f"bot {n}" if level else f"person {n}", "bot": level}
            for n, level in enumerate(levels)
        ]
    }


def bot_game(kind: str, levels: list[str | None], **options: Any) -> Game:
    """A standalone game whose seats are bots of ``levels`` (``None`` for a person)."""
    return service.create_game(kind, len(levels), context=bot_context(levels), **options)


def tournament(
    kind: str,
    *,
    people: int = 0,
    bots: list[str],
    rounds: int = 1,
    series: dict[str, Any] | None = None,
    turn_seconds: int | None = None,
    timeouts_to_bot: int = 0,
) -> tuple[Tournament, dict[str, Player]]:
    """A club tournament of one table (all players at it) with ``people`` logins and ``bots``."""
    n = next(_names)
    club = services.create_club(f"Workers club {n}", slug=f"workers-{n}")
    players: dict[str, Player] = {}
    for p in range(people):
        user = User.objects.create_user(f"person{n}-{p}", password="not-used-here")
        players[f"person {p}"] = services.add_player(club, f"Person {p}", user=user)
    for b, level in enumerate(bots):
        players[f"bot {b}"] = services.add_player(club, f"Bot {b}", bot_level=level)
    size = people + len(bots)
    night = services.create_tournament(
        club,
        f"Night {n}",
        kind,
        rounds,
        series=series or {"kind": get_game(kind).default_series.kind, "target": 1},
        table_min=size,
        table_max=size,
        turn_seconds=turn_seconds,
        timeouts_to_bot=timeouts_to_bot,
    )
    for player in players.values():
        services.register(night, player)
    return night, players


def begin_next_round(night: Tournament) -> Round:
    """Seat and begin the tournament's next round (everyone checked in)."""
    return services.begin_round(services.start_round(night, auto_check_in=True))


def running_game(night: Tournament) -> Game:
    """The game being played in the tournament's one table now."""
    return Game.objects.get(table__round__tournament=night, status=Game.Status.RUNNING)


def seat_of(game: Game, player: Player) -> TableSeat:
    return TableSeat.objects.get(table_id=game.table_id, player=player)


def events(game: Game) -> list[StoredEvent]:
    return store.read_stream(game.stream)
