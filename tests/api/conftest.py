"""API test fixtures: a club with logins and tokens, tournament games, an HTTP helper."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from engine.registry import get_game
from tournaments import services
from tournaments.api.authentication import create_token
from tournaments.models import Club, Game, Player, Tournament

#: Generous rates, so that the suite never meets a throttle it does not test.
HIGH_RATES = {"address": "100000/min", "anon": "100000/min", "token": "100000/min"}


@pytest.fixture(autouse=True)
def _api_settings(settings: Any) -> Iterator[None]:
    """Generous rates, and a fast password hasher (the tests make many logins)."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = HIGH_RATES
    settings.REST_FRAMEWORK = rest
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    yield


@dataclass
class Api:
    """A thin JSON client: ``api.get(path, token=...)`` returns (status, body, response)."""

    client: Client = field(default_factory=Client)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | str | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, Any, Any]:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data: Any = raw if raw is not None else (json.dumps(body) if body is not None else None)
        kwargs: dict[str, Any] = {"headers": sent}
        if data is not None:
            kwargs.update(data=data, content_type=content_type)
        response = getattr(self.client, method.lower())(path, **kwargs)
        if getattr(response, "streaming", False):
            return response.status_code, None, response
        text = response.content.decode()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        return response.status_code, parsed, response

    def get(self, path: str, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("POST", path, body, **kwargs)

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("PATCH", path, body, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("DELETE", path, **kwargs)


@pytest.fixture
def api() -> Api:
    return Api()


@dataclass
class World:
    """A club: an organiser, three players with logins and tokens, a stranger."""

    club: Club
    organiser: User
    users: dict[str, User]
    players: dict[str, Player]
    tokens: dict[str, str]


PASSWORD = "correct horse battery staple"


def make_world(slug: str = "parlour-club") -> World:
    users: dict[str, User] = {}
    for name in ("org", "alice", "bob", "carol", "dave", "eve"):
        users[name] = User.objects.create_user(f"{name}-{slug}", password=PASSWORD)
    club = services.create_club("Parlour Club", slug=slug, organisers=[users["org"]])
    players = {
        name: services.add_player(club, name.title(), user=users[name])
        for name in ("alice", "bob", "carol", "dave")
    }
    tokens = {name: create_token(user, "tests")[1] for name, user in users.items()}
    return World(club, users["org"], users, players, tokens)


@pytest.fixture
def world(db: Any) -> World:
    return make_world()


def tournament_game(
    world: World,
    game: str = "old_maid",
    names: tuple[str, ...] = ("alice", "bob", "carol"),
    deals: int = 1,
) -> tuple[Tournament, Game]:
    """A one-round tournament of ``game`` at one table of ``names`` (a series of ``deals``
    deals), begun: its first game."""
    tournament = services.create_tournament(
        world.club,
        f"{game} night",
        game,
        1,
        series={"kind": get_game(game).default_series.kind, "target": deals},
        table_min=len(names),
        table_max=len(names),
    )
    for name in names:
        services.register(tournament, world.players[name])
        services.check_in(tournament, world.players[name])
    round_ = services.start_round(tournament)
    services.begin_round(round_)
    found = Game.objects.get(table__round=round_)
    return tournament, found


def seat_of_name(world: World, game: Game, name: str) -> int:
    ids = [entry["player"] for entry in game.context["seats"]]
    return ids.index(world.players[name].pk)


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys and values)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            found |= strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= strings(item)
    return found
