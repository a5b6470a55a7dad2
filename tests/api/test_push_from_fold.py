"""A change made in a process is pushed to that process's follows of its game from the
change's own fold, with no read of theirs (tournaments/api/push.py, ``on_game_changed``;
issue 24), and each follow is sent what the REST API shows that caller, nothing more.

Every follower here is in this process (the ASGI application driven in the test's own
event loop), the moves are made through the REST API in another thread or over the
mover's own socket (answered, not pushed again), and a follow's own reads are counted:
its first view and the game's end are read, every move between is handed over.  A follow
due for its sign-in's check reads instead (a revoked token is cut off at the next move),
and a read of a move made in another process is one statement.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from asgiref.testing import ApplicationCommunicator
from django.db import OperationalError, connection, connections
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import Api, asgi_headers, timeless
from tests.factories import ClubWorld, tournament_game
from tournaments.api import push, waiting
from tournaments.api.authentication import create_token
from tournaments.models import Game
from tournaments.play.state import _cache
from tournaments.workers import notify

pytestmark = pytest.mark.django_db(transaction=True)

#: Who follows: each seat, a club player without a seat, the organiser, and anonymous.
FOLLOWERS = ("alice", "bob", "carol", "dave", "org", None)


@pytest.fixture(autouse=True)
def _settings(unthrottled: None) -> None:
    pass


class Follower:
    """One client's connection to the push channel, in this process, following a game."""

    def __init__(self, token: str | None) -> None:
        from parlour.asgi import application

        headers = asgi_headers(token)
        scope = {"type": "websocket", "path": "/api/v1/ws", "headers": headers}
        self.talk = ApplicationCommunicator(application, {**scope, "subprotocols": []})
        self.frames: list[dict[str, Any]] = []

    async def follow(self, game: int) -> dict[str, Any]:
        await self.talk.send_input({"type": "websocket.connect"})
        assert (await self.talk.receive_output(10))["type"] == "websocket.accept"
        assert (await self.next())["type"] == "hello"
        message = {"type": "follow", "game": game}
        await self.talk.send_input({"type": "websocket.receive", "text": json.dumps(message)})
        return await self.view_at(0)

    async def send(self, message: dict[str, Any]) -> None:
        await self.talk.send_input({"type": "websocket.receive", "text": json.dumps(message)})

    async def next(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads((await self.talk.receive_output(10))["text"])
        self.frames.append(frame)
        return frame

    async def view_at(self, sequence: int) -> dict[str, Any]:
        """The next frame, which must be a view at ``sequence`` or later."""
        frame = await self.next()
        assert frame["type"] == "view" and frame["sequence"] >= sequence, frame
        return frame

    async def close(self) -> None:
        await self.talk.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.talk.wait(10)


def first_action(api: Api, world: ClubWorld, game: Game, names: tuple[str, ...], key: str) -> int:
    """The seat ``game`` waits for (one of ``names``) makes its first legal action through
    the REST API: the game's new sequence."""
    game.refresh_from_db()
    player = game.context["seats"][game.waiting_for[0]]["player"]
    name = next(n for n in names if world.players[n].pk == player)
    shown = api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])[1]
    status, body, _ = api.post(
        f"/api/v1/games/{game.pk}/actions",
        {"action": shown["legal_actions"][0], "expected_sequence": shown["sequence"]},
        token=world.tokens[name],
        headers={"Idempotency-Key": f"{key}-{shown['sequence']}"},
    )
    assert status == 200, body
    return int(body["sequence"])


def test_a_move_is_pushed_to_this_process_s_follows_from_its_fold_as_the_api_shows_it(
    world: ClubWorld, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, game = tournament_game(world, "old_maid", ("alice", "bob", "carol"))
    reads: Counter[str | None] = Counter()
    view = push.PushConsumer.view

    def counted(self: push.PushConsumer, game_id: int, after: int) -> Any:
        reads[self.user.username if self.user.is_authenticated else None] += 1
        return view(self, game_id, after)

    monkeypatch.setattr(push.PushConsumer, "view", counted)
    # Nothing but a change wakes a follow: no timed re-read, no sign-in check due.
    monkeypatch.setattr(waiting, "recheck_seconds", lambda found, polling: 3600.0)
    monkeypatch.setattr(push, "AUTH_RECHECK_SECONDS", 3600.0)
    tokens = {name: world.tokens[name] if name else None for name in FOLLOWERS}
    logins = {name: world.users[name].username if name else None for name in FOLLOWERS}
    rng = random.Random(24)

    def shown(name: str | None) -> dict[str, Any]:
        status, body, _ = api.get(f"/api/v1/games/{game.pk}", token=tokens[name])
        assert status == 200, body
        return dict(body)

    def chosen() -> tuple[str, dict[str, Any]]:
        """Who moves next, and the body of their move."""
        game.refresh_from_db()
        seat = rng.choice(game.waiting_for or game.to_act)
        name = next(n for n in ("alice", "bob", "carol") if seated(n) == seat)
        now = shown(name)
        action = rng.choice(now["legal_actions"])
        return name, {"action": action, "expected_sequence": now["sequence"]}

    def posted(name: str, body: dict[str, Any]) -> int:
        status, answer, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            body,
            token=tokens[name],
            headers={"Idempotency-Key": f"fold-{body['expected_sequence']}"},
        )
        assert status == 200, answer
        return int(answer["sequence"])

    def seated(name: str) -> int:
        player = world.players[name].pk
        return next(i for i, s in enumerate(game.context["seats"]) if s["player"] == player)

    # The API is called in a thread of its own (not in the event loop), its connection
    # closed at the end.
    thread = ThreadPoolExecutor(1)

    async def aside(call: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(thread, call, *args)

    async def play() -> int:
        followers = {name: Follower(token) for name, token in tokens.items()}
        try:
            for name, follower in followers.items():
                first = await follower.follow(game.pk)
                assert timeless(first["view"]) == timeless(await aside(shown, name))
            # Redis's confirmation of the game's channel wakes its follows to read once more
            # (a move may have come before it): let that pass before counting.
            found = waiting.hub()
            while found is not None and not found.hears([notify.channel(game.pk)]):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            before.update(reads)
            moves = 0
            over = False
            while not over:
                assert moves < 300, "the game should have ended"
                mover, body = await aside(chosen)
                # Every other move over the mover's own socket, which follows the game: it
                # is answered (``acted``), the others are handed the move's view.
                acting = mover if moves % 2 else None
                acted: dict[str, Any] = {}
                if acting is None:
                    sequence = await aside(posted, mover, body)
                else:
                    act = {"type": "act", "game": game.pk, "key": f"ws-{moves}", **body}
                    await followers[acting].send(act)
                    acted = await followers[acting].next()
                    assert acted["type"] == "acted" and not acted["replayed"], acted
                    sequence = acted["sequence"]
                moves += 1
                for name, follower in followers.items():
                    mine = acting is not None and name == acting
                    frame = acted if mine else await follower.view_at(sequence)
                    # This move's view, exactly as the API shows this caller.
                    assert frame["sequence"] == sequence, (name, frame["sequence"], sequence)
                    api_view = await aside(shown, name)
                    assert timeless(frame["view"]) == timeless(api_view), name
                    over = frame["view"]["status"] == Game.Status.OVER
            return moves
        finally:
            for follower in followers.values():
                await follower.close()

    before: Counter[str | None] = Counter()
    try:
        moves = asyncio.run(play())
    finally:
        thread.submit(connections.close_all).result()
        thread.shutdown()
    assert moves > 5
    assert all(before[logins[name]] >= 1 for name in FOLLOWERS), before  # the first view
    # Once each while the game was played: its end; every other move was handed over.
    assert reads - before == {logins[name]: 1 for name in FOLLOWERS}, (reads, before)


def test_a_follows_read_of_a_move_made_elsewhere_is_one_statement_its_new_events_with_its_row(
    world: ClubWorld, api: Api
) -> None:
    """A move made in another process is read: the game's row, the caller's players, the
    table's seats and the game's events since the fold this process keeps, in one
    statement (where the events were a second), and the view pushed is the API's."""
    _, game = tournament_game(world, "old_maid", ("alice", "bob"))
    alice = world.users["alice"]
    consumer = push.PushConsumer()
    consumer.begin({"user": alice, "auth": None, "refusal": None})
    first, _, _ = consumer.view(game.pk, -1)
    assert first is not None
    kept = _cache.get(game.pk)  # the fold this process keeps
    assert kept is not None
    for _ in range(3):
        sequence = first_action(api, world, game, ("alice", "bob"), "elsewhere")
    # As if those moves were made in another process: this one keeps the fold it had.
    _cache.put(game.pk, *kept)
    with CaptureQueriesContext(connection) as queries:
        frame, over, _ = consumer.view(game.pk, first["sequence"])
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert frame is not None and not over
    assert frame["sequence"] == sequence > first["sequence"]
    shown = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["alice"])[1]
    assert timeless(frame["view"]) == timeless(shown)
    # The fold kept is moved on to the row's last event.
    assert _cache.get(game.pk)[0].sequence == sequence  # type: ignore[index]


def test_a_follow_due_for_its_sign_in_check_reads_and_a_revoked_token_is_cut_off_at_a_move(
    world: ClubWorld, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view from a move's fold is handed only to a follow whose sign-in was checked
    lately: one due for its check reads (the check with it), so a token revoked since is
    cut off at the next move made in its process, not pushed that move (found by review)."""
    _, game = tournament_game(world, "old_maid", ("alice", "bob"))
    token, key = create_token(world.users["alice"], "follows")
    monkeypatch.setattr(waiting, "recheck_seconds", lambda found, polling: 3600.0)
    thread = ThreadPoolExecutor(1)

    async def aside(call: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(thread, call, *args)

    def move() -> int:
        return first_action(api, world, game, ("alice", "bob"), "due")

    def revoke() -> None:
        status, _, _ = api.delete(f"/api/v1/tokens/{token.pk}", token=key)
        assert status == 204

    async def check() -> None:
        follower = Follower(key)
        try:
            await follower.follow(game.pk)
            # Handed the next move's view from its fold, while its check is not due.
            await follower.view_at(await aside(move))
            await aside(revoke)
            monkeypatch.setattr(push, "AUTH_RECHECK_SECONDS", 0.0)  # due from now on
            await aside(move)
            ended = await follower.next()
            assert ended["type"] == "problem" and ended["problem"]["status"] == 401, ended
            closed = await follower.talk.receive_output(10)
            assert closed == {"type": "websocket.close", "code": push.CLOSE_UNAUTHENTICATED}
        finally:
            await follower.close()

    try:
        asyncio.run(check())
    finally:
        thread.submit(connections.close_all).result()
        thread.shutdown()


def test_a_follow_whose_access_read_fails_with_the_database_away_is_made_and_sends_its_view(
    world: ClubWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follow of a game sent while PostgreSQL restarts: told 503, and followed all the
    same (its access read once the database answers), as a follow whose read fails is
    retried by the server: never left following nothing (a fault run's table stuck at its
    next deal, whose follow had been refused with a 503 and never made)."""
    _, game = tournament_game(world, "old_maid", ("alice", "bob"))
    game_for_caller = push.sql.game_for_caller
    calls: list[int] = []

    def away_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # as Django raises psycopg's error
            try:
                raise psycopg.OperationalError("the database system is shutting down")
            except psycopg.OperationalError as error:
                raise OperationalError(str(error)) from error
        return game_for_caller(*args, **kwargs)

    monkeypatch.setattr(push.sql, "game_for_caller", away_once)

    async def check() -> None:
        follower = Follower(world.tokens["alice"])
        try:
            await follower.talk.send_input({"type": "websocket.connect"})
            assert (await follower.talk.receive_output(10))["type"] == "websocket.accept"
            assert (await follower.next())["type"] == "hello"
            await follower.send({"type": "follow", "game": game.pk})
            told = await follower.next()
            assert told["type"] == "problem" and told["game"] == game.pk, told
            assert told["problem"]["status"] == 503 and "key" not in told
            frame = await follower.view_at(game.sequence)
            assert frame["view"]["seat"] is not None
        finally:
            await follower.close()

    asyncio.run(check())
    assert len(calls) >= 2
