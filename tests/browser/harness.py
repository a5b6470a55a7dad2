"""The browser tests' helper process: sets up scenarios and plays the bots' seats.

Run as ``python -m tests.browser.harness`` with the same environment as the web
server under test (its own database).  It reads one JSON command per line on
standard input and answers one JSON line on standard output; meanwhile a thread
plays every bot seat of every running game through
:func:`tournaments.workers.autoplay.play_bot_move` (what the Celery worker does in
production), waiting ``delay`` seconds before each move so a person (or a test)
can watch.  Closing standard input stops it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import close_old_connections  # noqa: E402

from engine.series import SeriesFormat  # noqa: E402
from tests.factories import ONE_DEAL, PAGE_SEATS, begin_round  # noqa: E402
from tournaments import services  # noqa: E402
from tournaments.management.commands.play_bots import run_all_bots  # noqa: E402
from tournaments.models import Club, Game, Player, Round, Table, TableSeat, Tournament  # noqa: E402
from tournaments.workers.autoplay import (  # noqa: E402
    advance_bot_tournament,
    bot_to_act,
    bot_tournaments_to_advance,
    play_bot_move,
    play_forced_move,
)
from tournaments.workers.clock import expired_deadlines, fire_timeout  # noqa: E402

#: The seats of each game the play tests play (one person + bots), as the page tests'.
PLAY_SEATS = PAGE_SEATS


class Bots:
    """The thread that plays bot seats (and, if asked, starts bot tournaments' next rounds).

    With ``forced`` it also plays people's forced moves (the worker's ``forced_move`` task),
    with ``clock`` it applies expired turn clocks (the beat's sweep): off unless a test
    asks, so that the other tests' people seats wait for their clicks.
    """

    def __init__(self) -> None:
        self.delay = 0.05
        self.advance = False
        self.paused = False
        self.forced = False
        self.clock = False
        self.moves = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="bots", daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            moved = False
            try:
                if not self.paused:
                    moved = self.step()
            except Exception:  # keep playing; report on stderr
                traceback.print_exc(file=sys.stderr)
                close_old_connections()
            if not moved:
                time.sleep(0.03)

    def step(self) -> bool:
        moved = False
        for game in Game.objects.filter(status=Game.Status.RUNNING).order_by("id"):
            if self.stop.is_set() or self.paused:
                return moved
            if self.forced and play_forced_move(game.pk, game.sequence) is not None:
                self.moves += 1
                moved = True
                continue
            if not bot_to_act(game):
                continue
            if self.delay:
                time.sleep(self.delay)
            if play_bot_move(game.pk, game.sequence) is not None:
                self.moves += 1
                moved = True
        if self.clock:
            for game_id, seat, sequence in expired_deadlines():
                if fire_timeout(game_id, seat, sequence) is not None:
                    moved = True
        if self.advance:
            for tournament_id in bot_tournaments_to_advance():
                if advance_bot_tournament(tournament_id) is not None:
                    moved = True
        return moved


def _user(username: str, *, staff: bool = False) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User.objects.create_user(username, password=username, is_staff=staff)
    return user


def _club(name: str) -> Club:
    club = Club.objects.filter(name=name).first()
    return club if club is not None else services.create_club(name)


def _bots(club: Club, prefix: str, count: int, level: str = "heuristic") -> list[Any]:
    return [
        services.add_player(club, f"{prefix} Bot {i + 1}", bot_level=level) for i in range(count)
    ]


def _tables(tournament: Tournament) -> list[dict[str, Any]]:
    found = []
    for table in Table.objects.filter(round__tournament=tournament).order_by(
        "round__number", "number"
    ):
        game = Game.objects.filter(table=table).order_by("-number_in_series", "-id").first()
        found.append({"table": table.pk, "number": table.number, "game": game.pk if game else None})
    return found


def cmd_watch(tag: str, game: str = "bhabhi", players: int = 4, deals: int = 2) -> dict[str, Any]:
    """A running bot tournament (one table, round 1 begun) for watching live."""
    club = _club(f"Club {tag}")
    bots = _bots(club, tag, players)
    fmt = SeriesFormat("losses", deals) if game in ("bhabhi", "old_maid") else None
    tournament = services.create_tournament(
        club, f"Live {tag}", game, 2, series=fmt, table_max=players
    )
    for bot in bots:
        services.register(tournament, bot)
    begin_round(tournament)
    return {"tournament": tournament.pk, "tables": _tables(tournament)}


def cmd_finished(
    tag: str, game: str = "bhabhi", players: int = 3, least: int = 0
) -> dict[str, Any]:
    """A tournament of bots played to its end here (one round, one deal): its games.

    With ``least``, deals again (a new tournament) until the last game has that many moves.
    """
    club = _club(f"Club {tag}")
    bots = _bots(club, tag, players)
    for attempt in range(10):
        tournament = services.create_tournament(
            club,
            f"Done {tag}{f' {attempt}' if attempt else ''}",
            game,
            1,
            series=ONE_DEAL[game],
            table_max=players,
        )
        for bot in bots:
            services.register(tournament, bot)
        begin_round(tournament)
        run_all_bots(tournament)
        games = list(Game.objects.filter(table__round__tournament=tournament).order_by("id"))
        if games and games[-1].sequence - 1 >= least:
            break
    return {
        "tournament": tournament.pk,
        "games": [{"id": g.pk, "moves": g.sequence - 1, "status": g.status} for g in games],
    }


def cmd_rounds(tag: str, game: str = "bhabhi", players: int = 6, rounds: int = 5) -> dict[str, Any]:
    """A tournament of bots at tables of 3 played to its end over ``rounds`` rounds, dealt
    again (a new tournament) until two players are tied after some round: the ties, as
    (round, points, player names)."""
    from tournaments.services.queries import standings_rows

    club = _club(f"Club {tag}")
    bots = _bots(club, tag, players)
    ties: list[Any] = []
    for attempt in range(5):
        tournament = services.create_tournament(
            club,
            f"Rounds {tag}{f' {attempt}' if attempt else ''}",
            game,
            rounds,
            series=ONE_DEAL[game],
            table_max=3,
        )
        for bot in bots:
            services.register(tournament, bot)
        for _ in range(rounds):
            begin_round(tournament)
            run_all_bots(tournament)
        _, finished, rows = standings_rows(tournament)
        ties = []
        for i, number in enumerate(finished, start=1):
            totals: dict[float, list[str]] = {}
            for row in rows:
                totals.setdefault(row.cumulative[i], []).append(row.player.name)
            ties += [[number, value, names] for value, names in totals.items() if len(names) > 1]
        if ties:
            break
    return {"tournament": tournament.pk, "players": [b.name for b in bots], "ties": ties}


def cmd_play(
    tag: str, game: str, begin: bool = True, name: str = "", title: str = ""
) -> dict[str, Any]:
    """A person (a login; ``name``, or Person <tag>) and bots at one table of a one-deal
    tournament of ``game`` (``title``, or Play <tag>); without ``begin``: registered, round 1
    not begun yet (``cmd_begin`` begins it)."""
    club = _club(f"Club {tag}")
    username = f"p{tag}".lower()
    user = _user(username)
    person = services.add_player(club, name or f"Person {tag}", user=user)
    seats = PLAY_SEATS[game]
    bots = _bots(club, tag, seats - 1)
    tournament = services.create_tournament(
        club,
        title or f"Play {tag}",
        game,
        1,
        series=ONE_DEAL[game],
        table_max=seats,
        turn_seconds=600,
    )
    for player in [person, *bots]:
        services.register(tournament, player)
    if begin:
        begin_round(tournament)
    tables = _tables(tournament)
    return {
        "tournament": tournament.pk,
        "username": username,
        "password": username,
        "player": person.pk,
        "game": tables[0]["game"] if tables else None,
        "table": tables[0]["table"] if tables else None,
    }


def cmd_begin(tournament: int) -> dict[str, Any]:
    """Seat and begin the tournament's next round: its games are dealt."""
    row = Tournament.objects.get(pk=tournament)
    begin_round(row)
    return {"tables": _tables(row)}


def cmd_organiser(tag: str, bots: int = 5) -> dict[str, Any]:
    """A club with an organiser login and some bot players (not registered anywhere)."""
    club = _club(f"Club {tag}")
    username = f"o{tag}".lower()
    user = _user(username)
    club.organisers.add(user)
    made = _bots(club, tag, bots)
    return {
        "club": club.pk,
        "club_name": club.name,
        "username": username,
        "password": username,
        "bots": [b.name for b in made],
    }


def cmd_game(game: int) -> dict[str, Any]:
    row = Game.objects.get(pk=game)
    return {
        "status": row.status,
        "sequence": row.sequence,
        "result": row.result,
        "waiting_for": row.waiting_for,
        "kind": row.kind,
        "players": row.players,
    }


def cmd_pickups(game: int) -> dict[str, Any]:
    """Every trick picked up in a Bhabhi game, from the engine over its stored events alone:
    the sentence the log must hold for each (move number, who, how many cards), and the
    seat moves the game holds per seat."""
    from engine.registry import get_game
    from events import store

    row = Game.objects.get(pk=game)
    engine = get_game(row.kind)
    state: Any = None
    pickups = []
    moves = [0] * row.seats
    for number, event in enumerate(store.read_stream(row.stream)):
        after = engine.evolve(state, event.payload)
        action = event.payload.get("action") or {}
        if event.cause_kind == "seat":
            moves[event.payload["seat"]] += 1
        if (
            action.get("type") == "play"
            and state.phase == "trick"
            and state.trick_number > 1
            and action["card"][1] != state.trick[0][1][1]
        ):
            name = row.players[after.leader]
            pickups.append(
                {"move": number, "text": f"{name} picks up the trick: {len(state.trick) + 1} cards"}
            )
        state = after
    return {"pickups": pickups, "seat_moves": moves}


def cmd_seats(tournament: int) -> dict[str, Any]:
    """Each seat of the tournament's tables: who, which round, handed to a bot or not."""
    rows = TableSeat.objects.filter(table__round__tournament_id=tournament).select_related(
        "player", "table__round"
    )
    return {
        "seats": [
            {"player": r.player.name, "round": r.table.round.number, "autoplay": r.autoplay}
            for r in rows
        ]
    }


def cmd_tournament(tournament: int) -> dict[str, Any]:
    row = Tournament.objects.get(pk=tournament)
    rounds = [
        {"number": r.number, "status": r.status}
        for r in Round.objects.filter(tournament=row).order_by("number")
    ]
    return {"status": row.status, "rounds": rounds, "tables": _tables(row), "name": row.name}


def cmd_names() -> dict[str, Any]:
    """Every name people typed into this database: clubs, players, tournaments, logins."""
    return {
        "names": [
            *Club.objects.values_list("name", flat=True),
            *Player.objects.values_list("name", flat=True),
            *Tournament.objects.values_list("name", flat=True),
            *User.objects.values_list("username", flat=True),
        ]
    }


def main() -> None:
    bots = Bots()
    bots.thread.start()
    commands = {
        "watch": cmd_watch,
        "finished": cmd_finished,
        "play": cmd_play,
        "begin": cmd_begin,
        "rounds": cmd_rounds,
        "organiser": cmd_organiser,
        "game": cmd_game,
        "tournament": cmd_tournament,
        "pickups": cmd_pickups,
        "seats": cmd_seats,
        "names": cmd_names,
    }
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        name = request.pop("cmd")
        try:
            if name == "bots":
                bots.delay = float(request.get("delay", bots.delay))
                bots.advance = bool(request.get("advance", bots.advance))
                bots.paused = bool(request.get("paused", bots.paused))
                bots.forced = bool(request.get("forced", bots.forced))
                bots.clock = bool(request.get("clock", bots.clock))
                answer: dict[str, Any] = {"delay": bots.delay, "moves": bots.moves}
            else:
                answer = commands[name](**request)
            print(json.dumps({"ok": True, "result": answer}), flush=True)
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            print(
                json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}), flush=True
            )
        finally:
            close_old_connections()
    bots.stop.set()
    bots.thread.join(timeout=5)


if __name__ == "__main__":
    main()
