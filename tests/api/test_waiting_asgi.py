"""Long-polls and streams through the ASGI application (``parlour.asgi``), in this process.

Under ASGI a long-poll waits in the event loop on the process's notification hub
(``tournaments/api/waiting.py``) and only its final answer runs the view's code; the
answers must be those of WSGI (tests/api/test_long_poll.py): the same view, the same
refusals, the same limits.  Another client acts from a thread, so the tests commit for
real on PostgreSQL (``transaction=True``), with the real Redis where named.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from asgiref.testing import ApplicationCommunicator
from django.core.cache import caches

from conftest import redis_url
from tests.api.conftest import Api, asgi_headers, timeless
from tests.api.test_games import is_problem
from tests.api.test_long_poll import (
    ACT_AFTER,
    REDIS_DOWN,
    a_move_in_a_moment,
)
from tests.factories import ClubWorld as World
from tests.factories import tournament_game
from tournaments.api import waiting
from tournaments.workers import notify

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _settings(settings: Any, on_postgres: None, unthrottled: None) -> Iterator[None]:
    settings.PARLOUR_LONG_POLL_SECONDS = 30.0
    yield


@pytest.fixture
def with_redis(settings: Any) -> str:
    settings.REDIS_URL = redis_url()
    return str(settings.REDIS_URL)


def _scope(path: str, token: str | None) -> dict[str, Any]:
    route, _, query = path.partition("?")
    headers = asgi_headers(token)
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "query_string": query.encode(),
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


async def _get(
    path: str, token: str | None, timeout: float = 15
) -> tuple[int, dict[str, str], Any]:
    from parlour.asgi import application

    talk = ApplicationCommunicator(application, _scope(path, token))
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(timeout)
    body = b""
    while True:
        message = await talk.receive_output(timeout)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    await talk.wait(timeout)
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    text = body.decode()
    return start["status"], headers, (json.loads(text) if text else None)


def asgi_get(path: str, token: str | None = None) -> tuple[int, dict[str, str], Any, float]:
    """``GET path`` through parlour.asgi: status, headers, body, and the seconds it took."""
    started = time.monotonic()
    status, headers, body = asyncio.run(_get(path, token))
    return status, headers, body, time.monotonic() - started


async def follow_stream(path: str, token: str | None, field: str) -> list[tuple[float, str]]:
    """A stream through parlour.asgi to its end: each frame's ``field`` line (``id`` or
    ``data``) with the monotonic time it arrived."""
    from parlour.asgi import application

    talk = ApplicationCommunicator(application, _scope(path, token))
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(5)
    assert start["status"] == 200, start
    frames = []
    while True:
        message = await talk.receive_output(STREAM_SECONDS + 13)
        for line in message.get("body", b"").decode().splitlines():
            if line.startswith(f"{field}: "):
                frames.append((time.monotonic(), line[len(field) + 2 :]))
        if not message.get("more_body", False):
            break
    await talk.wait(5)
    return frames


def test_the_asgi_handler_marks_its_requests_as_able_to_wait_in_the_loop() -> None:
    from django.test import RequestFactory

    assert not waiting.deferrable(RequestFactory().get("/"))  # WSGI's waits in its thread


# -- waking ----------------------------------------------------------------------------------------


@pytest.mark.redis
def test_an_asgi_long_poll_wakes_on_the_hub_and_answers_what_the_plain_get_shows(
    world: World, with_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the hub's message can wake it this soon: the next read of the row is 5 s away.
    monkeypatch.setattr(waiting, "RECHECK_SECONDS", 5.0)
    game, sequence, token, later = a_move_in_a_moment(world)
    status, headers, view, took = asgi_get(
        f"/api/v1/games/{game.pk}?after={sequence}&wait=10", token
    )
    acted, body = later.result()
    assert acted == 200, body
    assert status == 200 and view["sequence"] == body["sequence"] > sequence
    assert ACT_AFTER <= took < 3, f"answered after {took:.2f} s"
    plain_status, plain_headers, plain, _ = asgi_get(f"/api/v1/games/{game.pk}", token)
    assert plain_status == 200 and timeless(view) == timeless(plain)
    # The same headers as an answer at once (the middleware's and DRF's), its length included.
    assert set(headers) == set(plain_headers), (headers, plain_headers)
    assert headers["content-type"] == plain_headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(json.dumps(view, separators=(",", ":")).encode())


def test_without_redis_an_asgi_long_poll_wakes_by_polling(world: World, settings: Any) -> None:
    settings.REDIS_URL = ""
    game, sequence, token, later = a_move_in_a_moment(world)
    status, _, view, took = asgi_get(f"/api/v1/games/{game.pk}?after={sequence}&wait=10", token)
    acted, body = later.result()
    assert acted == 200 and status == 200 and view["sequence"] == body["sequence"]
    assert ACT_AFTER <= took < 3, f"answered after {took:.2f} s"


def test_while_redis_is_down_an_asgi_long_poll_wakes_by_polling(
    world: World, settings: Any
) -> None:
    settings.REDIS_URL = REDIS_DOWN
    game, sequence, token, later = a_move_in_a_moment(world)
    status, _, view, took = asgi_get(f"/api/v1/games/{game.pk}?after={sequence}&wait=10", token)
    acted, body = later.result()
    assert acted == 200 and status == 200 and view["sequence"] == body["sequence"]
    assert ACT_AFTER <= took < 3, f"answered after {took:.2f} s"


# -- the same answers as WSGI ------------------------------------------------------------------


@pytest.mark.redis
def test_an_asgi_long_poll_that_times_out_answers_the_unchanged_view(
    world: World, api: Api, with_redis: str
) -> None:
    _, game = tournament_game(world)
    token = world.tokens["alice"]
    plain = api.get(f"/api/v1/games/{game.pk}", token=token)[1]
    status, _, view, took = asgi_get(
        f"/api/v1/games/{game.pk}?after={game.sequence}&wait=0.6", token
    )
    assert status == 200 and timeless(view) == timeless(plain)
    assert 0.55 <= took < 2.5, f"answered after {took:.2f} s"


@pytest.mark.redis
def test_asgi_refusals_are_those_of_wsgi_and_come_before_any_wait(
    world: World, api: Api, with_redis: str
) -> None:
    _, game = tournament_game(world)
    for query in ("after=x", "after=1&wait=nan"):
        status, _, problem, took = asgi_get(
            f"/api/v1/games/{game.pk}?{query}", world.tokens["alice"]
        )
        wsgi = api.get(f"/api/v1/games/{game.pk}?{query}", token=world.tokens["alice"])
        assert status == 400 and is_problem(problem, 400, "invalid") and took < 1
        assert (status, problem) == (wsgi[0], wsgi[1])
    status, _, problem, took = asgi_get("/api/v1/games/999999?after=1&wait=10", None)
    assert status == 404 and is_problem(problem, 404, "not-found") and took < 1


@pytest.mark.redis
def test_an_asgi_long_poll_takes_a_slot_refuses_one_too_many_and_gives_it_back(
    world: World, with_redis: str, settings: Any
) -> None:
    settings.PARLOUR_OPEN_STREAMS_PER_TOKEN = 1
    settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS = 1000
    caches["default"].clear()
    _, game = tournament_game(world)
    token = world.tokens["alice"]
    path = f"/api/v1/games/{game.pk}?after={game.sequence}&wait=1"

    async def two_at_once() -> list[tuple[int, dict[str, str], Any]]:
        first = asyncio.create_task(_get(path, token))
        await asyncio.sleep(0.4)  # the first is waiting, holding the token's one slot
        second = await _get(path, token)
        return [await first, second]

    (first, _, view), (second, _, problem) = asyncio.run(two_at_once())
    assert first == 200 and view["sequence"] == game.sequence
    assert second == 429 and problem["type"].endswith("/throttled"), problem
    # The first one's slot is back: another long-poll is let in.
    assert asgi_get(path.replace("wait=1", "wait=0.1"), token)[0] == 200


@pytest.mark.redis
def test_a_client_that_goes_away_gives_its_long_polls_slot_back(
    world: World, with_redis: str, settings: Any
) -> None:
    settings.PARLOUR_OPEN_STREAMS_PER_TOKEN = 1
    settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS = 1000
    caches["default"].clear()
    _, game = tournament_game(world)
    token = world.tokens["alice"]
    path = f"/api/v1/games/{game.pk}?after={game.sequence}&wait=20"

    async def leave() -> None:
        from parlour.asgi import application

        talk = ApplicationCommunicator(application, _scope(path, token))
        await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
        await asyncio.sleep(0.5)
        await talk.send_input({"type": "http.disconnect"})
        await talk.wait(5)

    started = time.monotonic()
    asyncio.run(leave())
    assert time.monotonic() - started < 5, "the wait ended with its client"
    assert asgi_get(path.replace("wait=20", "wait=0.1"), token)[0] == 200


#: How long the hub tests' streams last: well past a move on a loaded machine, and short of
#: the streams' next read unwoken (:data:`UNWOKEN_READ_SECONDS`).  A stream reads once more
#: at its end, so a frame counts only if it arrived before then.
STREAM_SECONDS = 7
UNWOKEN_READ_SECONDS = 10.0


def asleep_on_the_hub(
    monkeypatch: pytest.MonkeyPatch, settings: Any, waiters: int = 1
) -> threading.Event:
    """Streams that read again unwoken only after :data:`UNWOKEN_READ_SECONDS`, and an
    event set once ``waiters`` waiters have each begun a wait on the hub, their channels
    confirmed, with no wake pending (the confirmations' wakes, a tournament stream's new
    channels and the first reads are behind them): a move made after it reaches those
    streams before their end only through the hub's message."""
    monkeypatch.setattr(waiting, "RECHECK_SECONDS", UNWOKEN_READ_SECONDS)
    settings.PARLOUR_STREAM_POLL_SECONDS = UNWOKEN_READ_SECONDS
    ready = threading.Event()
    wait = waiting.Waiter.wait
    asleep: set[int] = set()

    async def waited(self: waiting.Waiter, timeout: float) -> bool:
        found = waiting.hub()  # the stream's own: made when it began to listen
        # Heard: Redis confirmed every channel it waits on (a waiter may begin before).
        hearing = found is not None and found.hears(self.channels)
        if hearing and not self._woken.is_set() and timeout > 1:
            asleep.add(id(self))
            if len(asleep) >= waiters:
                ready.set()
        return await wait(self, timeout)

    monkeypatch.setattr(waiting.Waiter, "wait", waited)
    return ready


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["game", "tournament"])
def test_an_asgi_stream_is_woken_by_the_hub_not_its_next_poll(
    kind: str, world: World, with_redis: str, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between its reads a subscribed stream waits UNWOKEN_READ_SECONDS, and it ends after
    # STREAM_SECONDS; the move is made only once the stream waits on the subscribed hub.
    # So the move's frame, if it comes before the stream's last read at its end, came by
    # the hub's message (the game's channel, or its tournament's).  That is the only bound
    # on how soon, so that a loaded machine's slow move is not taken for a missed message
    # (ci 9 of 12-04 failed a bound of 1.5 s after the move).
    ready = asleep_on_the_hub(monkeypatch, settings)
    game, sequence, token, later = a_move_in_a_moment(world, ready)
    assert game.table is not None
    if kind == "game":
        path = f"/api/v1/games/{game.pk}/stream?timeout={STREAM_SECONDS}&last_event_id={sequence}"
    else:
        tournament = game.table.round.tournament_id
        path = f"/api/v1/tournaments/{tournament}/stream?timeout={STREAM_SECONDS}"

    started = time.monotonic()
    frames = asyncio.run(follow_stream(path, token, "id"))
    acted, body = later.result()
    assert acted == 200, body
    arrived = [at - started for at, i in frames if i.split(".")[0] == str(body["sequence"])]
    if kind == "tournament":  # ids are positions: the move is the last event
        arrived = [frames[-1][0] - started]
    assert arrived and ACT_AFTER <= arrived[0] < STREAM_SECONDS, (arrived, frames)


# -- the hub ---------------------------------------------------------------------------------------


async def connected() -> waiting.Hub:
    """This event loop's hub, once its connection to Redis is up and read (5 s at most)."""
    hub = waiting.hub()
    assert hub is not None
    deadline = time.monotonic() + 5
    while not hub.subscribed and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert hub.subscribed
    return hub


async def heard(hub: waiting.Hub, channels: list[str], *waiters: waiting.Waiter) -> None:
    """Until Redis has confirmed ``channels``; the confirmations' wakes of ``waiters`` seen."""
    deadline = time.monotonic() + 5
    while not hub.hears(channels) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert hub.hears(channels), channels
    for waiter in waiters:
        await waiter.wait(0)


def subscribed_channels(client: redis.Redis) -> set[str]:
    """The channels of this site's Redis database that some connection subscribes to."""
    prefix = notify.channel_prefix()[: -len("game:")]
    return {c.decode() for c in client.pubsub_channels(f"{prefix}*")}


@pytest.mark.redis
def test_the_hub_wakes_only_the_waiters_of_the_channel_a_message_names(with_redis: str) -> None:
    publisher = redis.Redis.from_url(with_redis)

    async def run() -> tuple[list[bool], bool, int]:
        hub = waiting.hub()
        assert hub is not None and waiting.hub() is hub  # one per event loop
        with hub.listening([notify.channel(1001)]) as mover:
            others = [hub.listening([notify.channel(2000 + i)]) for i in range(200)]
            idle = [o.__enter__() for o in others]
            with hub.listening([notify.channel(3001)]) as later:
                await heard(hub, list(hub.waiters), mover, later, *idle)
                publisher.publish(notify.channel(1001), "5")
                woken = await mover.wait(2)
                announced = mover.heard == 5
                hub.register(later, [notify.channel(3002)])  # as a tournament's stream does
                await heard(hub, [notify.channel(3002)], later)
                publisher.publish(notify.channel(3002), "1")
                woken_later = await later.wait(2)
                asleep = [await w.wait(0) for w in idle]
            for o in others:
                o.__exit__(None, None, None)
        left = len(hub.waiters)
        return [woken, announced, woken_later], any(asleep), left

    try:
        woken, any_other, left = asyncio.run(run())
    finally:
        publisher.close()
    assert woken == [True, True, True]
    assert not any_other, "a message woke waiters of other games"
    assert left == 0, "a waiter that left is forgotten"


@pytest.mark.redis
def test_the_hub_subscribes_to_the_channels_waited_on_and_lets_them_go_after_a_while(
    with_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process hears only its own clients' games (a subscription to every channel made
    each web process read every move of the site), and a channel nobody waits on any
    more is unsubscribed once it has lingered."""
    monkeypatch.setattr(waiting, "LINGER_SECONDS", 0.3)
    client = redis.Redis.from_url(with_redis)
    before = subscribed_channels(client)
    games = [notify.channel(4001), notify.channel(4002)]

    async def run() -> tuple[set[str], set[str], set[str]]:
        hub = waiting.hub()
        assert hub is not None
        with hub.listening(games[:1]) as first, hub.listening(games) as second:
            await heard(hub, games, first, second)
            during = subscribed_channels(client) - before
        soon = subscribed_channels(client) - before  # the next poll comes at once
        deadline = time.monotonic() + 5
        while subscribed_channels(client) - before and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return during, soon, subscribed_channels(client) - before

    try:
        during, soon, after = asyncio.run(run())
    finally:
        client.close()
    assert during == set(games), during
    assert soon == set(games), "a channel just left lingers"
    assert after == set(), after


def test_a_channel_a_waiter_comes_back_to_while_it_is_being_let_go_is_asked_for_again() -> None:
    """The subscriber sends its SUBSCRIBEs and UNSUBSCRIBEs one after another, letting other
    tasks run meanwhile: a waiter that comes back to a channel being let go in that time
    must have it subscribed again, not wait for the next round (a review found one)."""
    sent: list[tuple[str, tuple[str, ...]]] = []

    async def run() -> tuple[list[tuple[str, tuple[str, ...]]], bool]:
        hub = waiting.Hub("redis://127.0.0.1:1/0")
        hub.stop()  # before its connection's loop begins: only the _ask below runs
        returning = waiting.Waiter()

        class PubSub:
            async def subscribe(self, *names: str) -> None:
                sent.append(("subscribe", names))
                if names == ("A",):  # while it is sent, a waiter comes back to Y
                    hub.register(returning, ["Y"])
                await asyncio.sleep(0)

            async def unsubscribe(self, *names: str) -> None:
                sent.append(("unsubscribe", names))
                await asyncio.sleep(0)

            async def ping(self) -> None:
                pass

        hub._asked = {"Y"}
        hub._left = {"Y": time.monotonic() - 60}  # it has lingered long enough
        hub._heard_at = time.monotonic()
        with hub.listening(["A"]):
            asking = asyncio.get_running_loop().create_task(hub._ask(PubSub()))
            await asyncio.sleep(0.2)
            asking.cancel()
            asked = "Y" in hub._asked
        return sent, asked

    commands, asked = asyncio.run(run())
    assert commands[:3] == [("subscribe", ("A",)), ("unsubscribe", ("Y",)), ("subscribe", ("Y",))]
    assert asked


@pytest.mark.redis
def test_a_waiter_on_a_channel_not_yet_confirmed_is_woken_to_read_once_it_is(
    with_redis: str,
) -> None:
    """A move published before Redis confirmed the channel is not heard: the confirmation
    wakes the waiter with nothing heard, so that it reads the database again."""

    async def run() -> tuple[bool, int | None, bool]:
        hub = await connected()
        with hub.listening([notify.channel(5001)]) as waiter:
            confirmed_before = hub.hears([notify.channel(5001)])
            woken = await waiter.wait(5)
            return woken, waiter.heard, confirmed_before

    woken, heard_sequence, confirmed_before = asyncio.run(run())
    assert not confirmed_before
    assert woken and heard_sequence is None, "woken to read, not told of a sequence"


@pytest.mark.redis
def test_the_hub_pings_a_quiet_connection_and_keeps_it(
    with_redis: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Reads wait without a timeout; the hub pings when nothing came for a while, and a
    connection that answers is kept (one that does not is made again)."""
    import logging

    monkeypatch.setattr(waiting, "PING_SECONDS", 0.2)
    monkeypatch.setattr(waiting, "LINGER_SECONDS", 0.1)

    async def run() -> bool:
        hub = await connected()
        await asyncio.sleep(2)  # ten times the ping's interval, three the deadline's
        return hub.subscribed

    with caplog.at_level(logging.WARNING, logger="tournaments.api.waiting"):
        kept = asyncio.run(run())
    assert kept
    assert not [r for r in caplog.records if "Redis failed" in r.getMessage()], caplog.text


def _closes(run: Any) -> None:
    """``asyncio.run(run())`` ends: its close cancels the hub's tasks and waits for them
    (in a thread, so that a task that outlives it fails the test rather than hangs it)."""
    done = threading.Event()

    def closing() -> None:
        asyncio.run(run())
        done.set()

    threading.Thread(target=closing, daemon=True).start()
    assert done.wait(15), "the hub's task outlived its event loop's close"


@pytest.mark.redis
def test_the_hub_stops_with_its_event_loop_even_if_a_read_swallows_the_cancel(
    with_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI run hung in asyncio.run's close: the hub's task read on after being cancelled,
    the cancel lost inside redis-py's read as its 5-s timeout ended.  Here every read
    loses it, and the loop must still end."""

    from redis.asyncio.client import PubSub

    original = PubSub.get_message

    async def swallowing(self: PubSub, *args: Any, **kwargs: Any) -> Any:
        try:
            return await original(self, *args, **kwargs)
        except asyncio.CancelledError:
            return None

    monkeypatch.setattr(PubSub, "get_message", swallowing)

    async def run() -> None:
        await connected()

    _closes(run)


@pytest.mark.redis
@pytest.mark.parametrize("when", ["connecting", "subscribing", "failing"])
def test_the_hub_stops_with_its_event_loop_even_if_a_ping_or_subscribe_swallows_the_cancel(
    with_redis: str, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """A CI run hung again in asyncio.run's close: the hub's task had been cancelled in its
    first ping (the loop closed while it connected), the cancel was lost there, and the
    task went on to read for ever.  Here the ping and the subscribe each take a while and
    lose any cancel that comes meanwhile, and the loop is closed during one of them; or the
    ping loses it and then fails, Redis being away, again at every try."""
    from redis.asyncio.client import PubSub

    def slow_and_swallowing(name: str) -> None:
        original = getattr(PubSub, name)

        async def patched(self: PubSub, *args: Any, **kwargs: Any) -> Any:
            with contextlib.suppress(asyncio.CancelledError):  # lost, as redis-py lost it
                await asyncio.sleep(0.3)
            if when == "failing":  # and Redis away: the call fails, again and again
                raise redis.ConnectionError("Redis is away")
            return await original(self, *args, **kwargs)

        monkeypatch.setattr(PubSub, name, patched)

    slow_and_swallowing("ping")
    slow_and_swallowing("subscribe")
    if when == "failing":  # the hub tries again soon, and round its loop many times
        monkeypatch.setattr(waiting, "RECONNECT_SECONDS", 0.05)

    async def run() -> None:
        hub = waiting.hub()
        assert hub is not None
        if when == "subscribing":
            deadline = time.monotonic() + 5
            while not hub.subscribed and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert hub.subscribed
            waiter = waiting.Waiter()
            hub.register(waiter, ["game-1"])
        await asyncio.sleep(0.1)  # the ping, or the subscribe, is under way

    _closes(run)


def test_a_waiter_woken_between_two_waits_returns_at_once() -> None:
    async def run() -> tuple[bool, float, bool]:
        waiter = waiting.Waiter()
        waiter.wake(b"3")  # while its owner was reading the database
        started = time.monotonic()
        first = await waiter.wait(5)
        took = time.monotonic() - started
        second = await waiter.wait(0.05)
        return first, took, second

    first, took, second = asyncio.run(run())
    assert first and took < 0.1
    assert not second, "a wake is seen once"


def test_a_waiter_tells_the_highest_sequence_it_was_woken_with_or_that_it_may_have_missed_one() -> (
    None
):
    """What the push channel skips a read on (issue 24): a wait woken only by sequences this
    client was sent already needs no read of the database; anything else must read."""

    async def run() -> list[int | None]:
        waiter = waiting.Waiter()
        heard = []
        waiter.wake(b"7")
        waiter.wake(b"5")  # messages of two processes may come in either order
        await waiter.wait(1)
        heard.append(waiter.heard)
        waiter.wake_again()  # the owner's own reason to look again: nothing heard
        await waiter.wait(1)
        heard.append(waiter.heard)
        waiter.wake(b"9")
        waiter.wake(None)  # the hub's "read again": a message may have been lost
        await waiter.wait(1)
        heard.append(waiter.heard)
        await waiter.wait(0.01)  # timed out: the safety net reads
        heard.append(waiter.heard)
        return heard

    assert asyncio.run(run()) == [7, -1, None, None]
