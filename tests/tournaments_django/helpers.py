"""Building clubs, bots and tournaments for the tournament app's tests."""

from __future__ import annotations

from typing import Any

from engine.series import SeriesFormat
from tournaments import services
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import Club, Player, Round, Tournament

LEVELS = ("heuristic", "random")


def club(name: str = "Test Club") -> Club:
    return services.create_club(name)


def bots(at: Club, count: int, prefix: str = "Bot") -> list[Player]:
    """``count`` bot players, levels alternating heuristic / random."""
    return [
        services.add_player(at, f"{prefix} {i:02d}", bot_level=LEVELS[i % 2]) for i in range(count)
    ]


def people(at: Club, names: list[str]) -> list[Player]:
    return [services.add_player(at, name) for name in names]


def tournament(
    at: Club,
    players: list[Player],
    *,
    game: str = "bhabhi",
    rounds: int = 2,
    series: SeriesFormat | None = None,
    **settings: Any,
) -> Tournament:
    """A tournament of ``game`` with ``players`` registered."""
    made = services.create_tournament(
        at,
        "Test Night",
        game,
        rounds,
        series=series or SeriesFormat("losses", 1),
        **settings,
    )
    for player in players:
        services.register(made, player)
    return made


def play_round(t: Tournament, **start: Any) -> Round:
    """Seat, begin and let the bots play one round to its end; the round, refreshed."""
    start.setdefault("auto_check_in", True)
    round_ = services.begin_round(services.start_round(t, **start))
    run_all_bots(t)
    round_.refresh_from_db()
    return round_
