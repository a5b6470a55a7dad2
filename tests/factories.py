"""The suite's one set of builders: clubs, people, bots, tournaments and the "worlds" the
suites start from, all made through the use cases of :mod:`tournaments.services` (so a
test's world is one the service itself could have made; nothing is written to a model
directly).

Plain functions and small dataclasses rather than factory_boy: every object here is made
by a use case with rules of its own (a club's slug, a registration, a seating), which a
model factory would bypass or wrap in ``post_generation`` hooks; a function says it in
two lines.

- Primitives: :func:`user`, :func:`club`, :func:`person`, :func:`bots`, :func:`people`,
  :func:`tournament`, :func:`begin_round`, :func:`play_round`, :func:`running_game`,
  :func:`seat_of`, :func:`events`, :func:`bot_game`.
- Worlds: :class:`ClubWorld` (:func:`club_world`: an organiser and people with logins and
  API tokens, the API and project tests), :class:`PageWorld` (:func:`page_world`: a person
  with a login and six bots, the page tests), :class:`FuzzClub` / :class:`FuzzTable`
  (:func:`fuzz_club`, :func:`fuzz_table`: every seat a person with a token, the fuzzers),
  and :func:`table_tournament` (one table of people and bots, the worker tests).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from events.store import StoredEvent
from tournaments import play as service
from tournaments import services
from tournaments.api.authentication import create_token
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import Club, Game, Player, Round, TableSeat, Tournament
from tournaments.workers.autoplay import run_bots

#: The password of every login a factory makes unless it is given one.
PASSWORD = "correct horse battery staple"
#: Bot levels :func:`bots` alternates.
LEVELS = ("heuristic", "random")
#: A one-deal series of each game (the page tests' tournaments).
ONE_DEAL = {
    "give_away": SeriesFormat("first_to", 1),
    "old_maid": SeriesFormat("losses", 1),
    "bhabhi": SeriesFormat("losses", 1),
    "give_and_take": SeriesFormat("place_points", 1),
}

_numbers = itertools.count(1)


def unique() -> int:
    """A number no other call in this process returned: for names and slugs."""
    return next(_numbers)


# -- primitives ---------------------------------------------------------------------------------


def user(username: str, password: str | None = PASSWORD) -> User:
    return User.objects.create_user(username, password=password)


def club(
    name: str = "Test Club", *, slug: str | None = None, organisers: Iterable[User] = ()
) -> Club:
    return services.create_club(name, slug=slug, organisers=organisers)


def person(at: Club, name: str, login: User | None = None) -> Player:
    """A person of club ``at``, with ``login`` if given."""
    return services.add_player(at, name, user=login)


def people(at: Club, names: list[str]) -> list[Player]:
    """People without logins."""
    return [person(at, name) for name in names]


def bots(
    at: Club, count: int, prefix: str = "Bot", levels: tuple[str, ...] = LEVELS
) -> list[Player]:
    """``count`` bot players named ``"{prefix} 00"``…, their levels cycling through ``levels``."""
    return [
        services.add_player(at, f"{prefix} {i:02d}", bot_level=levels[i % len(levels)])
        for i in range(count)
    ]


def series_of(game: str, deals: int) -> dict[str, Any]:
    """``game``'s default series kind, over ``deals`` deals."""
    return {"kind": get_game(game).default_series.kind, "target": deals}


def tournament(
    at: Club,
    players: Iterable[Player] = (),
    *,
    game: str = "bhabhi",
    rounds: int = 2,
    series: SeriesFormat | dict[str, Any] | None = None,
    name: str = "Test Night",
    check_in: bool = False,
    **settings: Any,
) -> Tournament:
    """A tournament of ``game`` with ``players`` registered (and, with ``check_in``, checked in)."""
    made = services.create_tournament(
        at, name, game, rounds, series=series or SeriesFormat("losses", 1), **settings
    )
    for player in players:
        services.register(made, player)
        if check_in:
            services.check_in(made, player)
    return made


def begin_round(t: Tournament, **start: Any) -> Round:
    """Seat and begin the tournament's next round (``start``: :func:`services.start_round`'s
    options; ``auto_check_in`` unless told otherwise)."""
    start.setdefault("auto_check_in", True)
    return services.begin_round(services.start_round(t, **start))


def play_round(t: Tournament, **start: Any) -> Round:
    """Seat, begin and let the bots play one round to its end; the round, refreshed."""
    round_ = begin_round(t, **start)
    run_all_bots(t)
    round_.refresh_from_db()
    return round_


def running_game(t: Tournament) -> Game:
    """The game being played at the tournament's one table now."""
    return Game.objects.get(table__round__tournament=t, status=Game.Status.RUNNING)


def seat_of(game: Game, player: Player) -> TableSeat:
    return TableSeat.objects.get(table_id=game.table_id, player=player)


def events(game: Game) -> list[StoredEvent]:
    return store.read_stream(game.stream)


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


# -- a club of people with logins and tokens (API, project tests) ------------------------------


@dataclass
class ClubWorld:
    """A club: an organiser, four players with logins and tokens, two strangers (dave is a
    player too; eve is nobody's)."""

    club: Club
    organiser: User
    users: dict[str, User]
    players: dict[str, Player]
    tokens: dict[str, str]


def club_world(slug: str = "parlour-club") -> ClubWorld:
    users = {
        name: user(f"{name}-{slug}") for name in ("org", "alice", "bob", "carol", "dave", "eve")
    }
    made = club("Parlour Club", slug=slug, organisers=[users["org"]])
    players = {
        name: person(made, name.title(), users[name]) for name in ("alice", "bob", "carol", "dave")
    }
    tokens = {name: create_token(login, "tests")[1] for name, login in users.items()}
    return ClubWorld(made, users["org"], users, players, tokens)


def tournament_game(
    world: ClubWorld,
    game: str = "old_maid",
    names: tuple[str, ...] = ("alice", "bob", "carol"),
    deals: int = 1,
) -> tuple[Tournament, Game]:
    """A one-round tournament of ``game`` at one table of ``names`` (a series of ``deals``
    deals), begun: its first game."""
    made = tournament(
        world.club,
        [world.players[name] for name in names],
        game=game,
        rounds=1,
        name=f"{game} night",
        series=series_of(game, deals),
        check_in=True,
        table_min=len(names),
        table_max=len(names),
    )
    round_ = begin_round(made, auto_check_in=False)
    return made, Game.objects.get(table__round=round_)


def seat_of_name(world: ClubWorld, game: Game, name: str) -> int:
    ids = [entry["player"] for entry in game.context["seats"]]
    return ids.index(world.players[name].pk)


# -- a person and bots, seen through the pages -------------------------------------------------

#: How many seats the page tests' games of a person and bots have.
PAGE_SEATS = {"give_away": 2, "old_maid": 2, "bhabhi": 3, "give_and_take": 2}


@dataclass
class PageWorld:
    club: Club
    organiser: User
    person: User
    player: Player
    bots: list[Player] = field(default_factory=list)

    def client(self, login: User | None = None) -> Client:
        client = Client()
        if login is not None:
            client.force_login(login)
        return client


def page_world() -> PageWorld:
    """Olga organises Test Club; Ann plays in it; six bots, heuristic and random in turn."""
    organiser = user("olga", password="olga-secret")
    ann = user("ann", password="ann-secret")
    made = club("Test Club", organisers=[organiser])
    player = person(made, "Ann", ann)
    six = [
        services.add_player(made, f"Bot {i}", bot_level="heuristic" if i % 2 else "random")
        for i in range(6)
    ]
    return PageWorld(made, organiser, ann, player, six)


def bot_tournament(
    world: PageWorld, game: str = "bhabhi", players: int = 3, rounds: int = 1, play: bool = True
) -> Tournament:
    """A tournament of bots with round 1 begun and, with ``play``, played to the end."""
    made = tournament(
        world.club,
        world.bots[:players],
        game=game,
        rounds=rounds,
        name=f"Bots {game} {Tournament.objects.count()}",
        series=ONE_DEAL[game],
        table_max=players,
    )
    begin_round(made)
    if play:
        run_all_bots(made)
    return made


def person_game(world: PageWorld, game: str, *, turn_seconds: int | None = 300) -> Game:
    """A one-deal tournament of ``game`` with Ann and bots; the bots have played up to Ann.

    A deal that ends before Ann acts (an Old Maid hand can empty at the deal) is dealt again.
    """
    seats = PAGE_SEATS[game]
    for attempt in range(10):
        made = tournament(
            world.club,
            [world.player, *world.bots[: seats - 1]],
            game=game,
            rounds=1,
            name=f"Ann's {game} {attempt} {Tournament.objects.count()}",
            series=ONE_DEAL[game],
            table_max=seats,
            turn_seconds=turn_seconds,
        )
        begin_round(made)
        found = Game.objects.get(table__round__tournament=made)
        run_bots(found.pk)
        found.refresh_from_db()
        if not found.is_over:
            return found
    raise AssertionError(f"ten {game} deals ended before Ann could act")


# -- every seat a person with a token (the fuzzers) --------------------------------------------

#: Seat counts each game is fuzzed and checked at.
FUZZ_SEATS = {"give_away": 3, "old_maid": 3, "bhabhi": 3, "give_and_take": 2}


@dataclass
class FuzzClub:
    """A club: an organiser, four seated-to-be people, a club player who sits nowhere
    (tokens, not logins: the fuzzers call the API)."""

    club: Club
    organiser: str
    people: list[tuple[Player, str]]
    bystander: str


def fuzz_club(max_people: int = 4) -> FuzzClub:
    tag = unique()
    users = [user(f"fz{tag}-u{i}", password=None) for i in range(max_people + 2)]
    made = club(f"Fuzz club {tag}", slug=f"fuzz-{tag}", organisers=[users[0]])
    seated = []
    for i, login in enumerate(users[1 : max_people + 1]):
        seated.append((person(made, f"Person {i}", login), create_token(login, "fuzz")[1]))
    person(made, "Bystander", users[-1])
    return FuzzClub(made, create_token(users[0], "fuzz")[1], seated, create_token(users[-1])[1])


@dataclass
class FuzzTable:
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


def fuzz_table(
    kind: str,
    seats: int | None = None,
    club: FuzzClub | None = None,
    rng: random.Random | None = None,
) -> FuzzTable:
    """A one-round tournament of ``kind`` at one table of people, one deal, begun (at
    ``club``, or at a new :func:`fuzz_club`)."""
    seats = seats or FUZZ_SEATS[kind]
    at = club or fuzz_club()
    made = tournament(
        at.club,
        [player for player, _ in at.people[:seats]],
        game=kind,
        rounds=1,
        name=f"{kind} fuzz",
        series=series_of(kind, 1),
        check_in=True,
        table_min=seats,
        table_max=seats,
    )
    round_ = begin_round(made, auto_check_in=False, rng=rng)
    game = Game.objects.get(table__round=round_)
    by_player = {p.pk: token for p, token in at.people}
    tokens = [by_player[entry["player"]] for entry in game.context["seats"]]
    return FuzzTable(made, game, tokens, at.organiser, at.bystander)


# -- one table of people and bots (the worker tests) -------------------------------------------


def table_tournament(
    kind: str,
    *,
    people: int = 0,
    bots: list[str],
    rounds: int = 1,
    series: dict[str, Any] | None = None,
    turn_seconds: int | None = None,
    timeouts_to_bot: int = 0,
) -> tuple[Tournament, dict[str, Player]]:
    """A club tournament of one table (all players at it) with ``people`` logins and ``bots``
    of the given levels; the players by name (``"person 0"``…, ``"bot 0"``…)."""
    n = unique()
    made = club(f"Workers club {n}", slug=f"workers-{n}")
    players: dict[str, Player] = {}
    for p in range(people):
        players[f"person {p}"] = person(made, f"Person {p}", user(f"person{n}-{p}"))
    for b, level in enumerate(bots):
        players[f"bot {b}"] = services.add_player(made, f"Bot {b}", bot_level=level)
    size = people + len(bots)
    night = tournament(
        made,
        players.values(),
        game=kind,
        rounds=rounds,
        name=f"Night {n}",
        series=series or series_of(kind, 1),
        table_min=size,
        table_max=size,
        turn_seconds=turn_seconds,
        timeouts_to_bot=timeouts_to_bot,
    )
    return night, players
