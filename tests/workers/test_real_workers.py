"""Real worker processes (``celery -A parlour worker --beat``) on PostgreSQL and Redis.

The test process plays the web server: it creates games and acts for people;
its commits queue tasks on the test broker.  The workers do the rest.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
import redis
from django.db import connections

from engine.record import import_record
from engine.registry import get_game
from events.store import StoredEvent
from tests.factories import begin_round, bot_game, events, running_game, seat_of, table_tournament
from tests.waiting import wait_for
from tests.workers.conftest import (
    BROKER_DB,
    WORKER_DATABASES,
    Worker,
    broker,
    default_database,
    flush_test_redis,
    redis_at,
    worker_alias,
)
from tournaments import play as service
from tournaments.models import Game, Round, Tournament
from tournaments.workers import clock, tasks

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, databases=WORKER_DATABASES),
]

#: How long a worker may take to play games out, and to do one step (a turn, a timeout).
#: Generous: each wait returns as soon as its condition holds (tests/waiting.py), and on a
#: loaded 2-core machine a game of bots took over 60 s.
GAMES_SECONDS = 300
STEP_SECONDS = 120


def refreshed(game: Game) -> Game:
    game.refresh_from_db()
    return game


def assert_whole(game: Game) -> None:
    """The stream is whole: each sequence once, every move legal, the projection its fold."""
    stored = events(game)
    assert [e.sequence for e in stored] == list(range(1, len(stored) + 1))
    engine = get_game(game.kind)
    state = engine.fold(e.payload for e in stored)
    assert game.sequence == len(stored) and game.result == engine.outcome(state)
    import_record(service.export_record(game))  # replays and checks every move
    for event in stored:
        if event.cause_kind == "bot":  # each bot move made once, at the sequence its task named
            seat = event.payload["seat"]
            assert event.idempotency_key == f"bot:{game.pk}:{event.sequence - 1}:{seat}"


def bot_game_played_out(
    worker: Worker, bots: tuple[str, ...] = ("random", "heuristic", "heuristic", "random")
) -> Game:
    """A Bhabhi game of four bots, played to its end by ``worker``."""
    game = bot_game("bhabhi", list(bots))
    wait_for(
        lambda: refreshed(game).is_over,
        timeout=GAMES_SECONDS,
        what="the game to end",
        check=worker.alive_or_fail,
    )
    return game


def test_a_game_of_bots_plays_to_the_end_on_its_own(worker: Worker) -> None:
    assert_whole(bot_game_played_out(worker))


def test_a_tournament_of_bots_plays_to_the_end_on_its_own(worker: Worker) -> None:
    night, _ = table_tournament(
        "bhabhi",
        bots=["random", "heuristic", "heuristic", "random"],
        rounds=2,
        series={"kind": "losses", "target": 2},
        turn_seconds=30,
    )
    begin_round(night)  # the organiser's one step; the workers do the rest
    wait_for(
        lambda: Tournament.objects.get(pk=night.pk).status == Tournament.Status.FINISHED,
        timeout=GAMES_SECONDS,
        what="the tournament to finish",
        check=worker.alive_or_fail,
    )
    rounds = list(Round.objects.filter(tournament=night).order_by("number"))
    assert [r.status for r in rounds] == [Round.Status.FINISHED] * 2
    games = list(Game.objects.filter(table__round__tournament=night))
    assert len(games) >= 4 and all(g.is_over for g in games)
    for game in games:
        assert_whole(game)


def persons_deadlines(game: Game, seat: int) -> dict[int, datetime]:
    """``seat``'s deadline after each event of ``game`` (by sequence) while it is waited for."""
    engine = get_game(game.kind)
    stored = events(game)
    assert game.turn_seconds is not None
    found: dict[int, datetime] = {}
    due: datetime | None = None
    for n, event in enumerate(stored, start=1):
        state = engine.fold(e.payload for e in stored[:n])
        if seat not in engine.waiting_for(state):
            due = None
            continue
        if due is None:
            due = event.recorded_at + timedelta(seconds=game.turn_seconds)
        found[event.sequence] = due
    return found


def test_a_person_who_does_not_act_gets_the_timeout_action_at_the_deadline(
    worker: Worker,
) -> None:
    night, players = table_tournament(
        "bhabhi", people=1, bots=["heuristic", "heuristic"], turn_seconds=1, timeouts_to_bot=2
    )
    begin_round(night)
    game = running_game(night)
    person = seat_of(game, players["person 0"])

    def timed_out() -> bool:
        return len(persons_timeouts()) >= 2

    def persons_timeouts() -> list[StoredEvent]:
        # (a bot's seat has a clock too, but a bot moves long before it runs out)
        return [
            e
            for e in events(game)
            if e.cause_kind == "timeout" and e.payload["seat"] == person.seat
        ]

    wait_for(timed_out, timeout=STEP_SECONDS, what="two timeouts", check=worker.alive_or_fail)
    # The person's deadline after each event, read from the stream by the clock's rule (a
    # seat's clock starts with the event after which it is waited for, and runs while it
    # is; tournaments/play/projection.py), not polled: a poll starved on a loaded machine
    # could miss the sequence a timeout came at.
    deadlines = persons_deadlines(refreshed(game), person.seat)
    for event in persons_timeouts()[:2]:
        assert event.cause_id == str(person.seat)
        due = deadlines[event.sequence - 1]
        assert due <= event.recorded_at < due + timedelta(seconds=1), "applied within 1 s"
    person.refresh_from_db()
    assert person.autoplay and person.timeouts_in_a_row == 2  # handed to a bot…
    wait_for(
        lambda: Tournament.objects.get(pk=night.pk).status == Tournament.Status.FINISHED,
        timeout=GAMES_SECONDS,
        what="the bot to finish the person's game",
        check=worker.alive_or_fail,
    )
    played = [e for e in events(game) if e.payload.get("seat") == person.seat]
    assert played[-1].cause_kind == "bot" and played[-1].cause_id == "heuristic"
    assert_whole(refreshed(game))


def test_a_worker_killed_mid_game_and_restarted_lets_the_games_finish_whole(
    worker: Worker,
) -> None:
    games = [bot_game("bhabhi", ["random", "heuristic"] * 3) for _ in range(3)]

    def moves() -> int:
        return sum(refreshed(g).sequence for g in games)

    wait_for(lambda: moves() > 40, timeout=STEP_SECONDS, what="the games to get going")
    worker.kill()
    # A COMMIT the killed worker had sent lands after the kill (PostgreSQL finishes it
    # without its client): a run of 12-07 under load counted such a move as made while no
    # worker ran.  The moves are counted once that has had its moment.
    time.sleep(0.5)
    frozen = moves()
    assert not all(g.is_over for g in games), "the games ended before the kill: make them longer"
    time.sleep(1.5)
    assert moves() == frozen, "nothing moves while no worker runs"
    worker.start()  # the sweep finds the games whose bot tasks died with the worker
    wait_for(
        lambda: all(refreshed(g).is_over for g in games),
        timeout=GAMES_SECONDS,
        what="the games to finish after the restart",
        check=worker.alive_or_fail,
    )
    for game in games:
        assert_whole(game)


def test_a_task_delivered_twice_or_late_changes_nothing(worker: Worker) -> None:
    game = bot_game("bhabhi", [None, "heuristic", "heuristic"])
    engine = get_game("bhabhi")

    def persons_turn_or_end() -> bool:
        return 0 in refreshed(game).waiting_for or game.is_over

    for _ in range(3):  # the person moves; the bots answer through the worker
        wait_for(persons_turn_or_end, timeout=STEP_SECONDS, what="the person's turn")
        if game.is_over:
            break
        action = engine.legal_actions(service.load_state(game), 0)[0]
        service.submit_action(game.pk, 0, action, expected_sequence=game.sequence)
    wait_for(persons_turn_or_end, timeout=STEP_SECONDS, what="the person's turn")
    before = events(game)
    bot_moves = [e.sequence - 1 for e in before if e.cause_kind == "bot"]
    assert bot_moves
    sent = []
    for sequence in bot_moves:  # every bot task again, twice
        sent += [tasks.bot_move.apply_async((game.pk, sequence)).id for _ in range(2)]
    for sequence in range(1, game.sequence + 1):  # and a bot move and a timeout at each sequence
        sent.append(tasks.bot_move.apply_async((game.pk, sequence)).id)
        sent.append(tasks.timeout.apply_async((game.pk, 0, sequence)).id)

    def all_ran() -> bool:
        log = "\n".join(worker.lines())
        return all(f"[{task}] succeeded" in log for task in sent)

    wait_for(
        all_ran,
        timeout=STEP_SECONDS,
        what="the worker to run every copy",
        check=worker.alive_or_fail,
    )
    assert events(game) == before


def message_args(message: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(json.loads(base64.b64decode(message["body"]))[0])


def test_a_commit_queues_the_bot_move_and_each_persons_timeout_at_its_deadline(
    test_broker: redis.Redis,
) -> None:
    games = [
        refreshed(bot_game("old_maid", [None, None, "heuristic"], turn_seconds=20, dealer=d))
        for d in range(3)
    ]
    messages = [json.loads(m) for m in test_broker.lrange("celery", 0, -1)]
    sent = sorted((m["headers"]["task"], message_args(m)) for m in messages)
    expected = []
    for game in games:
        for seat in sorted(int(s) for s in game.deadlines if int(s) != 2):
            expected.append(("tournaments.tasks.timeout", (game.pk, seat, game.sequence)))
        if 2 in game.to_act:
            expected.append(("tournaments.tasks.bot_move", (game.pk, game.sequence)))
    kinds = {task for task, _ in expected}
    assert kinds == {"tournaments.tasks.timeout", "tournaments.tasks.bot_move"}
    assert sent == sorted(expected)
    for message in messages:
        game_id, seat = message_args(message)[:2]
        game = next(g for g in games if g.pk == game_id)
        if message["headers"]["task"] == "tournaments.tasks.timeout":
            assert datetime.fromisoformat(message["headers"]["eta"]) == clock.deadline_of(
                game, seat
            )


def test_a_worker_keeps_its_database_connection_from_task_to_task(
    worker_env: dict[str, str], tmp_path: Any
) -> None:
    """With DATABASE_CONN_MAX_AGE a pool process reuses its connection for the next task
    (Celery's Django fix-up would otherwise close it after every task: a connect per bot
    move, docs/benchmarks.md), and closes it only when it is too old or unusable."""
    name = f"parlour-reuse-{uuid.uuid4().hex[:8]}"
    env = worker_env | {
        "DATABASE_URL": worker_env["DATABASE_URL"] + "?" + urlencode({"application_name": name}),
        "DATABASE_CONN_MAX_AGE": "60",
    }
    flush_test_redis()
    process = Worker(env, tmp_path / "worker.log")
    with default_database(worker_alias()), broker(redis_at(BROKER_DB)):
        try:
            process.start()
            # Heuristic bots never take the left hand, so the first trick alone is four
            # bot moves; a random bot may take hands and end the game in three.
            game = bot_game_played_out(process, bots=("heuristic",) * 4)
            stored = events(game)
            bot_moves = [e for e in stored if e.cause_kind == "bot"]
            assert len(bot_moves) >= 4  # moves after the first, each its own task
            with connections[worker_alias()].cursor() as cursor:
                cursor.execute(
                    "SELECT COUNT(*) FROM pg_stat_activity"
                    " WHERE application_name = %s AND backend_start < %s",
                    [name, bot_moves[0].recorded_at],
                )
                (kept,) = cursor.fetchone()
            assert_whole(game)  # on the worker's database, while it is this thread's default
        finally:
            process.stop()
    # The pool processes' connections opened before the first move are still open after
    # the last: every move in between reused them (a connect per task leaves none).
    assert kept >= 1
