"""Fixtures for the page tests: clubs, people with logins, bots and tournaments built with the
use cases of tournaments.services (the bots play synchronously, no worker)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from engine.series import SeriesFormat
from tournaments import services
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import Club, Game, Player, Tournament
from tournaments.workers.autoplay import run_bots

ONE_DEAL = {
    "give_away": SeriesFormat("first_to", 1),
    "old_maid": SeriesFormat("losses", 1),
    "bhabhi": SeriesFormat("losses", 1),
    "give_and_take": SeriesFormat("place_points", 1),
}
SEATS = {"give_away": 2, "old_maid": 2, "bhabhi": 3, "give_and_take": 2}


@dataclass
class World:
    club: Club
    organiser: User
    person: User
    player: Player
    bots: list[Player] = field(default_factory=list)

    def client(self, user: User | None = None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client


@pytest.fixture
def world(db: Any) -> World:
    organiser = User.objects.create_user("olga", password="olga-secret")
    person = User.objects.create_user("ann", password="ann-secret")
    club = services.create_club("Test Club", organisers=[organiser])
    player = services.add_player(club, "Ann", user=person)
    bots = [
        services.add_player(club, f"Bot {i}", bot_level="heuristic" if i % 2 else "random")
        for i in range(6)
    ]
    return World(club, organiser, person, player, bots)


def bot_tournament(
    world: World, game: str = "bhabhi", players: int = 3, rounds: int = 1, play: bool = True
) -> Tournament:
    """A tournament of bots with round 1 begun and, with ``play``, played to the end."""
    tournament = services.create_tournament(
        world.club,
        f"Bots {game} {Tournament.objects.count()}",
        game,
        rounds,
        series=ONE_DEAL[game],
        table_max=players,
    )
    for bot in world.bots[:players]:
        services.register(tournament, bot)
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    if play:
        run_all_bots(tournament)
    return tournament


def person_game(world: World, game: str, *, turn_seconds: int | None = 300) -> Game:
    """A one-deal tournament of ``game`` with Ann and bots; the bots have played up to Ann.

    A deal that ends before Ann acts (an Old Maid hand can empty at the deal) is dealt again.
    """
    for attempt in range(10):
        tournament = services.create_tournament(
            world.club,
            f"Ann's {game} {attempt} {Tournament.objects.count()}",
            game,
            1,
            series=ONE_DEAL[game],
            table_max=SEATS[game],
            turn_seconds=turn_seconds,
        )
        for player in [world.player, *world.bots[: SEATS[game] - 1]]:
            services.register(tournament, player)
        services.begin_round(services.start_round(tournament, auto_check_in=True))
        found = Game.objects.get(table__round__tournament=tournament)
        run_bots(found.pk)
        found.refresh_from_db()
        if not found.is_over:
            return found
    raise AssertionError(f"ten {game} deals ended before Ann could act")


@pytest.fixture
def make_person_game(world: World) -> Callable[..., Game]:
    return lambda game, **kw: person_game(world, game, **kw)
