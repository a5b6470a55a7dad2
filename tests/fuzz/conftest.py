"""Fixtures of the fuzz and hidden-information tests: people with tokens at tournament tables.

Every seat is a person with a login and an API token (no bots, so nothing is queued
for a worker), plus a club player without a seat, the club's organiser and an
anonymous caller.  :func:`snapshot` is what "nothing changed" means: the event
store's rows and every game projection.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test import Client

from engine.registry import get_game
from tests.workers.conftest import default_database
from tournaments import services
from tournaments.api.authentication import create_token
from tournaments.models import Club, Game, Player, Tournament
from tournaments.play import PROJECTED_FIELDS, randomness

#: Rates no fuzz run can reach, so a 429 never hides another answer.
HIGH_RATES = {"address": "10000000/min", "anon": "10000000/min", "token": "10000000/min"}
PROBLEM = "application/problem+json"
#: Seat counts each game is fuzzed and checked at.
SEATS = {"give_away": 3, "old_maid": 3, "bhabhi": 3, "give_and_take": 2}

_names = itertools.count()

#: The store backends a fuzzer runs on: both under ``PARLOUR_TEST_BOTH_BACKENDS=1``
#: (``make test``), else the default database alone.
BACKENDS = [
    pytest.param(alias, marks=[pytest.mark.postgres] if alias == "postgres" else [])
    for alias in ("sqlite", "postgres")
    if alias in django_settings.DATABASES
] or ["default"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each backend's connection as the ``default`` one while the test runs (the test
    needs ``django_db(databases="__all__")``): the same fuzzer, with the same fixed
    seed, on SQLite and on PostgreSQL.

    The connection answers to the alias ``default`` meanwhile: code that builds a
    row with ``connection.alias`` (the token authentication) must get the alias its
    other rows come from, or Django refuses to relate them."""
    alias = str(request.param)
    with default_database(alias):
        swapped = connections["default"]
        swapped.alias = "default"
        try:
            yield alias
        finally:
            swapped.alias = alias


@pytest.fixture(autouse=True)
def _fuzz_settings(settings: Any) -> Iterator[None]:
    """High throttle rates, a fast password hasher, short streams and long-polls."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = HIGH_RATES
    settings.REST_FRAMEWORK = rest
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PARLOUR_STREAM_POLL_SECONDS = 0.001
    settings.PARLOUR_STREAM_SECONDS = 0.5
    # A generated ?after= beyond the sequence would otherwise wait 25 s for a move.
    settings.PARLOUR_LONG_POLL_SECONDS = 0.05
    yield


@dataclass
class Club4:
    """A club: an organiser, four seated-to-be people, a club player who sits nowhere."""

    club: Club
    organiser: str
    people: list[tuple[Player, str]]
    bystander: str


def make_club(max_people: int = 4) -> Club4:
    tag = next(_names)
    users = [User.objects.create_user(f"fz{tag}-u{i}") for i in range(max_people + 2)]
    club = services.create_club(f"Fuzz club {tag}", slug=f"fuzz-{tag}", organisers=[users[0]])
    people = []
    for i, user in enumerate(users[1 : max_people + 1]):
        player = services.add_player(club, f"Person {i}", user=user)
        people.append((player, create_token(user, "fuzz")[1]))
    services.add_player(club, "Bystander", user=users[-1])
    return Club4(club, create_token(users[0], "fuzz")[1], people, create_token(users[-1])[1])


@dataclass
class Table:
    """A begun tournament game and who may call: a token per seat, others by role."""

    tournament: Tournament
    game: Game
    seat_tokens: list[str]
    organiser: str
    bystander: str

    def refresh(self) -> Game:
        self.game.refresh_from_db()
        return self.game

    def current(self) -> Game:
        """The table's newest game (a series deals the next when one ends)."""
        found = Game.objects.filter(table_id=self.game.table_id).order_by("-id").first()
        assert found is not None
        self.game = found
        return found


@contextmanager
def deterministic(seed: int) -> Iterator[random.Random]:
    """Deals, chance moves and seating drawn from ``seed`` while the block runs.

    The service draws seeds, shuffles and blind draws from the operating system;
    hypothesis needs a run it can repeat, so here they come from ``seed``.
    """
    # The service's one random source (tournaments/play/randomness.py): the deals'
    # seeds, a table's server seeds committed before each deal (docs/fairness.md),
    # chance moves.
    with randomness.using(randomness.Seeded(seed)) as source:
        yield source.generator()


def make_table(
    kind: str,
    seats: int | None = None,
    club: Club4 | None = None,
    rng: random.Random | None = None,
) -> Table:
    """A one-round tournament of ``kind`` at one table of people, one deal, begun."""
    seats = seats or SEATS[kind]
    club = club or make_club()
    engine = get_game(kind)
    tournament = services.create_tournament(
        club.club,
        f"{kind} fuzz",
        kind,
        1,
        series={"kind": engine.default_series.kind, "target": 1},
        table_min=seats,
        table_max=seats,
    )
    for player, _ in club.people[:seats]:
        services.register(tournament, player)
        services.check_in(tournament, player)
    round_ = services.start_round(tournament, rng=rng)
    services.begin_round(round_)
    game = Game.objects.get(table__round=round_)
    by_player = {p.pk: token for p, token in club.people}
    tokens = [by_player[entry["player"]] for entry in game.context["seats"]]
    return Table(tournament, game, tokens, club.organiser, club.bystander)


# -- calling the API -----------------------------------------------------------------------------


def call(
    client: Client,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Any = None,
    raw: bytes | str | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Any:
    """One request; ``raw`` is sent as the body as it is, ``body`` as JSON."""
    sent = dict(headers or {})
    if token is not None:
        sent.setdefault("Authorization", f"Bearer {token}")
    kwargs: dict[str, Any] = {"headers": sent}
    data = raw if raw is not None else (None if body is None else json.dumps(body))
    if data is not None:
        kwargs.update(data=data, content_type=content_type)
    return getattr(client, method.lower())(path, **kwargs)


def assert_problem(response: Any, what: str = "") -> dict[str, Any]:
    """``response`` is a 4xx problem document with type, title, status and detail."""
    status = response.status_code
    if getattr(response, "streaming", False):
        text = b"".join(response.streaming_content).decode(errors="replace")
        raise AssertionError(f"{what}: {status} a stream, not a problem: {text[:300]}")
    body = response.content.decode(errors="replace")
    assert 400 <= status < 500, f"{what}: {status} {body[:400]}"
    assert response["Content-Type"].startswith(PROBLEM), f"{what}: {response['Content-Type']}"
    problem = json.loads(body)
    assert isinstance(problem, dict), what
    assert isinstance(problem.get("type"), str) and problem["type"], (what, problem)
    assert isinstance(problem.get("title"), str) and problem["title"], (what, problem)
    assert problem.get("status") == status, (what, problem)
    assert isinstance(problem.get("detail"), str) and problem["detail"], (what, problem)
    return problem


def snapshot() -> tuple[Any, ...]:
    """The event store's rows (count, last id) and every game projection, to compare."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM events_event")
        events = tuple(cursor.fetchone() or ())
    games = tuple(Game.objects.order_by("id").values_list("id", *PROJECTED_FIELDS))
    return events, games
