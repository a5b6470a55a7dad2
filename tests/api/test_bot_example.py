"""examples/bot.py over real HTTP: bot processes play whole bot-vs-bot tournaments.

Every seat of four tournaments (one of each game, the Old Maid one over two rounds) is a
person whose login is played by its own examples/bot.py process, three random and three
heuristic; the bots follow nothing but their account streams.  The organiser only
creates, seats and begins the rounds, over the API.  Each tournament must reach its
end, and each bot must have reported each of its games there as finished.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.api.live import (
    PYTHON,
    ROOT,
    LiveDatabase,
    LiveServer,
    call,
    live_database,
    live_server,
    postgres_of_the_run,
)
from tests.factories import series_of
from tests.waiting import wait_for

pytestmark = pytest.mark.slow  # a live server and six bot processes

BOT = ROOT / "examples" / "bot.py"
#: The people of tests/api/live_seed.py, each played by a bot process.
PEOPLE = ("ann", "ben", "cat", "dan", "eli", "fay")
#: game, its players, rounds.
TOURNAMENTS = [
    ("old_maid", ("ann", "ben", "cat"), 2),
    ("bhabhi", ("dan", "eli", "fay"), 1),
    ("give_away", ("ann", "dan"), 1),
    ("give_and_take", ("ben", "eli"), 1),
]


@pytest.fixture(scope="module")
def live_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveDatabase]:
    with live_database(tmp_path_factory.mktemp("bots-db"), postgres_of_the_run()) as database:
        yield database


@pytest.fixture(scope="module")
def server(live_db: LiveDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # The production shape: gunicorn with uvicorn workers (parlour.asgi).
    with live_server(live_db, tmp_path_factory.mktemp("bots-server"), "gunicorn") as running:
        yield running


def organise(server: LiveServer, seeded: dict[str, Any], path: str, body: Any = None) -> Any:
    status, answer = call(server.url, "POST", path, body or {}, token=seeded["tokens"]["org"])
    assert status in (200, 201), (path, status, answer)
    return answer


def create(server: LiveServer, seeded: dict[str, Any], game: str, names: tuple[str, ...]) -> int:
    made = organise(
        server,
        seeded,
        "/api/v1/tournaments",
        {
            "club": seeded["club"],
            "name": f"Bots at {game}",
            "game": game,
            "rounds": next(r for g, _, r in TOURNAMENTS if g == game),
            "series": series_of(game, 1),
            "table_min": len(names),
            "table_max": len(names),
        },
    )
    for name in names:
        body = {"player": seeded["players"][name]}
        organise(server, seeded, f"/api/v1/tournaments/{made['id']}/registrations", body)
    return int(made["id"])


def begin(server: LiveServer, seeded: dict[str, Any], tournament: int) -> None:
    round_ = organise(
        server, seeded, f"/api/v1/tournaments/{tournament}/rounds", {"auto_check_in": True}
    )
    organise(server, seeded, f"/api/v1/tournaments/{tournament}/rounds/{round_['number']}/begin")


def state(server: LiveServer, tournament: int) -> tuple[str, list[dict[str, Any]]]:
    status, body = call(server.url, "GET", f"/api/v1/tournaments/{tournament}")
    assert status == 200, body
    status, rounds = call(server.url, "GET", f"/api/v1/tournaments/{tournament}/rounds")
    assert status == 200, rounds
    return str(body["status"]), list(rounds["results"])


@dataclass
class BotProcess:
    """One examples/bot.py process, its JSON lines read as they come."""

    name: str
    process: subprocess.Popen[str]
    lines: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip():
                self.lines.append(json.loads(line))

    def reported(self) -> set[int]:
        """The games it printed as finished."""
        return {int(line["game_id"]) for line in list(self.lines) if "game_id" in line}

    def stop(self) -> str:
        """SIGTERM; its stderr once it has exited."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        return self.process.stderr.read()


def start_bots(server: LiveServer, seeded: dict[str, Any]) -> dict[str, BotProcess]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    bots = {}
    for i, name in enumerate(PEOPLE):
        args = [PYTHON, str(BOT), "--url", server.url, "--seed", str(i), "--quiet"]
        if i % 2:
            args.append("--heuristic")
        process = subprocess.Popen(
            args,
            cwd="/",  # nowhere near Parlour: the bot imports none of it
            env=env | {"PARLOUR_TOKEN": seeded["tokens"][name]},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        bots[name] = BotProcess(name, process)
    return bots


def test_bot_processes_play_whole_tournaments_of_every_game_to_their_end(
    live_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = live_db.seeded
    bots = start_bots(server, seeded)
    errors: dict[str, str] = {}
    try:
        tournaments = {game: create(server, seeded, game, names) for game, names, _ in TOURNAMENTS}
        for tournament in tournaments.values():
            begin(server, seeded, tournament)

        def all_alive() -> None:
            for bot in bots.values():
                assert bot.process.poll() is None, f"{bot.name}'s bot stopped: {bot.lines}"

        def all_finished() -> bool:
            done = 0
            for game, tournament in tournaments.items():
                status, rounds = state(server, tournament)
                planned = next(r for g, _, r in TOURNAMENTS if g == game)
                if status == "finished":
                    done += 1
                elif len(rounds) < planned and all(r["status"] == "finished" for r in rounds):
                    begin(server, seeded, tournament)  # the organiser seats the next round
            return done == len(tournaments)

        wait_for(all_finished, timeout=300, every=0.5, check=all_alive, what="every tournament")
        games = {}
        for game, tournament in tournaments.items():
            path = f"/api/v1/games?tournament={tournament}&limit=500"
            status, body = call(server.url, "GET", path)
            assert status == 200
            games[game] = body["results"]
            assert games[game] and all(g["status"] == "over" for g in games[game]), game
        # Each bot hears of each game of its tournaments finish, from its stream alone.
        expected = {name: set[int]() for name in PEOPLE}
        for game, names, _ in TOURNAMENTS:
            for name in names:
                expected[name] |= {g["id"] for g in games[game]}

        def missing() -> dict[str, set[int]]:
            left = {n: expected[n] - bots[n].reported() for n in PEOPLE}
            return {n: games for n, games in left.items() if games}

        try:
            wait_for(lambda: not missing(), timeout=60, check=all_alive, what="the reports")
        except pytest.fail.Exception:
            pytest.fail(f"games the bots never reported finished: {missing()}")
    finally:
        for name, bot in bots.items():
            errors[name] = bot.stop()
    _, rounds = state(server, tournaments["old_maid"])
    assert len(rounds) == 2
    for name, bot in bots.items():
        assert bot.process.returncode == 0, (name, errors[name])
        last = bot.lines[-1]
        assert last["stopped"] is True and last["games"] >= len(expected[name]), (name, last)
    # People's moves were the bots' (the server plays only the forced ones).
    assert sum(bot.lines[-1]["moves"] for bot in bots.values()) > 0
    print({name: bot.lines[-1] for name, bot in bots.items()})


def run_bot(server: LiveServer, *args: str) -> subprocess.CompletedProcess[str]:
    """One bot process to its end, without a token in its environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PARLOUR_TOKEN")}
    return subprocess.run(
        [PYTHON, str(BOT), "--url", server.url, *args],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_bot_without_a_token_says_how_to_get_one(server: LiveServer) -> None:
    done = run_bot(server)
    assert done.returncode == 2 and "PARLOUR_TOKEN" in done.stderr


def test_a_bot_with_an_unknown_token_stops_with_the_reason(server: LiveServer) -> None:
    done = run_bot(server, "--token", "prl_not-a-token")
    assert done.returncode == 1 and "refused the token: 401" in done.stderr
