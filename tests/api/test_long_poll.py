"""Long-polling a game: ``GET /games/{id}?after=N&wait=S`` answers when the game moves.

The waiting request is woken by :mod:`tournaments.workers.notify`: a Redis publish after
each commit, a read of the game's row at least every second in case a publish is
lost, and a read every 0.1 s when there is no Redis.  The tests that wake a
request act from another thread, so they commit for real
(``transaction=True``) on PostgreSQL and, where named, the real Redis.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from django.db import connections

from conftest import redis_url
from parlour.cache import LuaScript
from tests.api.conftest import Api, timeless
from tests.api.test_games import act, drawer, is_problem, standalone
from tests.factories import ClubWorld, tournament_game
from tests.service.play import play
from tournaments.models import Game
from tournaments.workers import notify

pytestmark = pytest.mark.django_db

#: Wakes a request from another thread: the action must commit for real.
TRANSACTIONAL = pytest.mark.django_db(transaction=True)
#: A Redis URL where nothing listens (port 9, "discard", is closed here).
REDIS_DOWN = "redis://127.0.0.1:9/0"
#: How long after the long-poll starts the other client acts, in seconds.
ACT_AFTER = 0.3


@pytest.fixture
def with_redis(settings: Any) -> Iterator[str]:
    """The notifier on the real Redis (the marker ``redis`` skips or fails when it is down)."""
    settings.REDIS_URL = redis_url()
    yield settings.REDIS_URL


@pytest.fixture
def without_redis(settings: Any) -> Iterator[None]:
    """The embedded default: no Redis, the notifier polls the database."""
    settings.REDIS_URL = ""
    yield


@pytest.fixture(autouse=True)
def _long_poll_settings(settings: Any) -> Iterator[None]:
    """The shipped maximum, whatever the environment says (the messages name it)."""
    settings.PARLOUR_LONG_POLL_SECONDS = 30.0
    yield


@dataclass
class LaterAction:
    """Another client's action, sent from a thread ``ACT_AFTER`` seconds after it starts
    (or, given ``ready``, after ``ready`` is set: the waiter under test is waiting)."""

    world: ClubWorld
    game_id: int
    name: str
    ready: threading.Event | None = None
    status: int | None = None
    body: Any = None
    error: BaseException | None = None
    thread: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            if self.ready is not None and not self.ready.wait(10):
                raise TimeoutError("the waiter under test never began to wait")
            time.sleep(ACT_AFTER)
            game = Game.objects.get(pk=self.game_id)
            self.status, self.body, _ = act(
                Api(), self.world, game, self.name, {"type": "draw", "index": 0}, key="later"
            )
        except BaseException as error:  # shown by the test, not lost in the thread
            self.error = error
        finally:
            connections.close_all()  # this thread's connection, or the test database stays busy

    def result(self) -> tuple[int | None, Any]:
        self.thread.join(15)
        if self.error is not None:
            raise self.error
        assert not self.thread.is_alive(), "the other client's action did not end in 15 s"
        return self.status, self.body


def long_poll(api: Api, game: Game, query: str, token: str | None) -> tuple[int, Any, float]:
    """``GET /games/{id}?{query}``: status, body and the seconds it took."""
    started = time.monotonic()
    status, body, _ = api.get(f"/api/v1/games/{game.pk}?{query}", token=token)
    return status, body, time.monotonic() - started


def a_move_in_a_moment(
    world: ClubWorld, ready: threading.Event | None = None
) -> tuple[Game, int, str, LaterAction]:
    """A tournament game, its sequence, a waiting player's token, and the drawer about to act
    (``ACT_AFTER`` seconds from now, or after ``ready`` is set)."""
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    waiting = next(n for n in ("alice", "bob", "carol") if n != name)
    return game, game.sequence, world.tokens[waiting], LaterAction(world, game.pk, name, ready)


def long_poll_across_a_move(world: ClubWorld, api: Api) -> tuple[Game, dict[str, Any], str]:
    """A long-poll while another player acts :data:`ACT_AFTER` seconds later: it must answer
    with that move, soon after it (the game, the view it answered, the waiter's token)."""
    game, sequence, token, later = a_move_in_a_moment(world)
    status, view, took = long_poll(api, game, f"after={sequence}&wait=10", token)
    acted, body = later.result()
    assert acted == 200, f"the action stands whoever hears of it: {body}"
    assert status == 200 and view["sequence"] == body["sequence"] > sequence
    assert ACT_AFTER <= took < 3, f"answered after {took:.2f} s"
    return game, view, token


# -- waking ----------------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.redis
@TRANSACTIONAL
def test_a_long_poll_wakes_when_another_players_action_commits(
    world: ClubWorld, api: Api, with_redis: str, on_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the publish can wake it this soon: the next read of the row is 5 s away.
    monkeypatch.setattr(notify, "RECHECK_SECONDS", 5.0)
    game, view, token = long_poll_across_a_move(world, api)
    plain = api.get(f"/api/v1/games/{game.pk}", token=token)[1]
    assert timeless(view) == timeless(plain), "a long-poll answers what the plain GET shows"


@pytest.mark.postgres
@pytest.mark.redis
@TRANSACTIONAL
def test_a_lost_publish_only_delays_the_long_poll_until_the_next_database_read(
    world: ClubWorld,
    api: Api,
    with_redis: str,
    on_postgres: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The waiter subscribes on the real Redis; the publish goes nowhere (Redis "restarting").
    dead = redis.Redis.from_url(REDIS_DOWN, socket_connect_timeout=0.2)
    publish = notify._PUBLISH
    monkeypatch.setattr(notify, "_PUBLISH", lambda _client, **given: publish(dead, **given))
    monkeypatch.setattr(notify, "RECHECK_SECONDS", 0.5)
    with caplog.at_level(logging.WARNING, logger="tournaments.workers.notify"):
        long_poll_across_a_move(world, api)
    assert any("could not publish" in r.getMessage() for r in caplog.records)


@pytest.mark.postgres
@TRANSACTIONAL
def test_while_redis_is_down_actions_succeed_and_a_long_poll_wakes_by_polling(
    world: ClubWorld, api: Api, settings: Any, on_postgres: None, caplog: pytest.LogCaptureFixture
) -> None:
    settings.REDIS_URL = REDIS_DOWN
    with caplog.at_level(logging.WARNING, logger="tournaments.workers.notify"):
        long_poll_across_a_move(world, api)
    messages = [r.getMessage() for r in caplog.records]
    assert any("polling" in m for m in messages), messages
    assert any("could not publish" in m for m in messages), messages


@pytest.mark.postgres
@TRANSACTIONAL
def test_without_redis_a_long_poll_wakes_by_polling_the_database(
    world: ClubWorld, api: Api, without_redis: None, on_postgres: None
) -> None:
    long_poll_across_a_move(world, api)


# -- not waiting, or not for long ----------------------------------------------------------------


@pytest.mark.redis
def test_a_long_poll_that_times_out_answers_the_unchanged_view(
    world: ClubWorld, api: Api, with_redis: str
) -> None:
    _, game = tournament_game(world)
    token = world.tokens["alice"]
    plain = api.get(f"/api/v1/games/{game.pk}", token=token)[1]
    status, view, took = long_poll(api, game, f"after={game.sequence}&wait=0.6", token)
    assert status == 200 and timeless(view) == timeless(plain)
    assert 0.55 <= took < 2.5, f"answered after {took:.2f} s"


def test_without_redis_a_long_poll_that_times_out_answers_the_unchanged_view(
    world: ClubWorld, api: Api, without_redis: None
) -> None:
    _, game = tournament_game(world)
    plain = api.get(f"/api/v1/games/{game.pk}")[1]
    status, view, took = long_poll(api, game, f"after={game.sequence}&wait=0.3", None)
    assert status == 200 and timeless(view) == timeless(plain)
    assert 0.25 <= took < 2, f"answered after {took:.2f} s"


@pytest.mark.parametrize(
    "notifier", [pytest.param("with_redis", marks=pytest.mark.redis), "without_redis"]
)
def test_a_long_poll_behind_the_sequence_answers_at_once(
    world: ClubWorld, api: Api, notifier: str, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue(notifier)
    _, game = tournament_game(world)
    play(game, random.Random(1), moves=3)
    game.refresh_from_db()
    plain = api.get(f"/api/v1/games/{game.pk}")[1]
    for after in (0, 1, game.sequence - 1):
        status, view, took = long_poll(api, game, f"after={after}&wait=10", None)
        assert status == 200 and timeless(view) == timeless(plain) and took < 1, (after, took)


def test_a_long_poll_of_a_finished_game_answers_at_once(world: ClubWorld, api: Api) -> None:
    game = play(standalone(world), random.Random(3))
    assert game.is_over
    for after in (game.sequence, game.sequence + 100):
        status, view, took = long_poll(api, game, f"after={after}&wait=10", None)
        assert status == 200 and view["status"] == "over" and took < 1, (after, took)


def test_wait_0_answers_at_once_and_without_after_nothing_waits(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    plain = api.get(f"/api/v1/games/{game.pk}")[1]
    for query in (f"after={game.sequence}&wait=0", "wait=10", ""):
        status, view, took = long_poll(api, game, query, None)
        assert status == 200 and timeless(view) == timeless(plain) and took < 1, (query, took)


def test_a_smaller_maximum_cuts_the_default_and_longer_waits(
    world: ClubWorld, api: Api, settings: Any, without_redis: None
) -> None:
    settings.PARLOUR_LONG_POLL_SECONDS = 0.2
    _, game = tournament_game(world)
    for query in (f"after={game.sequence}", f"after={game.sequence}&wait=20"):
        status, _, took = long_poll(api, game, query, None)
        assert status == 200 and 0.15 <= took < 1.5, f"{query}: answered after {took:.2f} s"


# -- refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field", "accepted"),
    [
        ("after=x", "after", "a sequence (0 or more)"),
        ("after=-1", "after", "a sequence (0 or more)"),
        ("after=1.5", "after", "a sequence (0 or more)"),
        ("after=%C2%B2", "after", "a sequence (0 or more)"),  # "²", a digit to str.isdigit
        ("after=99999999999", "after", "a sequence (0 or more)"),
        ("after=1&wait=x", "wait", "seconds, a number"),
        ("after=1&wait=-1", "wait", "seconds, 0 or more"),
        ("after=1&wait=nan", "wait", "seconds, 0 or more"),
        ("after=1&wait=inf", "wait", "seconds, 0 or more"),
        ("wait=x", "wait", "seconds, a number"),
    ],
)
def test_a_bad_after_or_wait_is_a_400_problem_naming_the_field(
    world: ClubWorld, api: Api, query: str, field: str, accepted: str
) -> None:
    _, game = tournament_game(world)
    status, problem, took = long_poll(api, game, query, world.tokens["alice"])
    assert status == 400 and is_problem(problem, 400, "invalid"), problem
    assert problem["field"] == field and accepted in problem["detail"], problem
    assert took < 1


def test_a_long_poll_of_a_game_you_may_not_see_is_404_without_waiting(
    world: ClubWorld, api: Api
) -> None:
    game = standalone(world)  # running, outside tournaments: its players only
    for path in (f"/api/v1/games/{game.pk}", "/api/v1/games/999999"):
        started = time.monotonic()
        status, body, _ = api.get(
            f"{path}?after={game.sequence}&wait=10", token=world.tokens["carol"]
        )
        assert status == 404 and is_problem(body, 404, "not-found")
        assert time.monotonic() - started < 1
    # Bad parameters tell nothing about a game you may not see either.
    assert api.get(f"/api/v1/games/{game.pk}?after=x")[0] == 404


# -- the notifier and the schema -------------------------------------------------------------------


@pytest.mark.redis
def test_a_change_is_published_on_the_games_channel_with_its_sequence(with_redis: str) -> None:
    listener = redis.Redis.from_url(with_redis).pubsub(ignore_subscribe_messages=True)
    try:
        listener.subscribe(notify.channel(424242))
        assert listener.get_message(timeout=1) is None  # the confirmation, skipped
        notify.publish(424242, 17)
        message = listener.get_message(timeout=2)
    finally:
        listener.close()
    assert message is not None
    assert message["channel"] == notify.channel(424242).encode() and message["data"] == b"17"


def test_publishing_without_redis_or_to_a_redis_that_is_down_never_raises(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.REDIS_URL = ""
    notify.publish(1, 2)
    settings.REDIS_URL = REDIS_DOWN
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="tournaments.workers.notify"):
        notify.publish(1, 2)
    assert time.monotonic() - started < 2, "a Redis that is down does not hold up the action"
    assert any("could not publish" in r.getMessage() for r in caplog.records)


def test_the_schema_documents_after_and_wait(api: Api) -> None:
    schema = api.get("/api/v1/schema?format=json")[1]
    parameters = schema["paths"]["/api/v1/games/{game_id}"]["get"]["parameters"]
    by_name = {p["name"]: p for p in parameters if p["in"] == "query"}
    assert by_name["after"]["schema"]["minimum"] == 0
    assert by_name["wait"]["schema"] == {"type": "number", "minimum": 0}
    assert "PARLOUR_LONG_POLL_SECONDS" in by_name["wait"]["description"]


@pytest.mark.redis
def test_a_change_tells_its_game_and_its_logins_in_one_command_even_to_a_server_without_it(
    with_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One EVALSHA publishes to the game's channel and each login's (issue 24); a server
    that does not know the script (restarted, or a text it never saw: no SCRIPT FLUSH of
    a server others share) is sent it, and each channel hears its message once."""
    client = redis.Redis.from_url(with_redis)
    listener = client.pubsub(ignore_subscribe_messages=True)
    channels = [notify.channel(424243), notify.user_channel(77), notify.user_channel(78)]
    try:
        listener.subscribe(*channels)
        for _ in channels:
            listener.get_message(timeout=1)  # the confirmations, skipped
        for unknown in (False, True):
            if unknown:
                text = f"{notify._PUBLISH.text}-- {uuid.uuid4()}\n"
                monkeypatch.setattr(notify, "_PUBLISH", LuaScript(text))
                assert client.script_exists(hashlib.sha1(text.encode()).hexdigest()) == [False]
            notify.publish(424243, 9, users=[78, 77])
            heard = [listener.get_message(timeout=2) for _ in channels]
            assert [(m["channel"], m["data"]) for m in heard if m] == [
                (channels[0].encode(), b"9"),
                (channels[1].encode(), b"424243"),
                (channels[2].encode(), b"424243"),
            ]
            assert listener.get_message(timeout=0.2) is None
    finally:
        listener.close()
