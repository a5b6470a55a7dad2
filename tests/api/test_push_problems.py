"""The push channel's problem frames are the REST API's problem documents for the request a
message stands for, ``instance`` included (``/api/v1/games/{id}/actions`` for an act,
``/api/v1/games/{id}`` for a follow, ``/api/v1/ws`` for a message that names no game), and a
binary frame is refused for what it is (tournaments/api/push.py, docs/api.md "The push
channel").

The application is driven in this process (as tests/api/test_push_from_fold.py drives it);
the REST API is asked the same thing in the test's own thread, outside the event loop.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

from tests.api.conftest import Api, asgi_headers
from tests.factories import ClubWorld, seat_of_name, tournament_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _settings(unthrottled: None) -> None:
    pass


class Socket:
    """One client's connection to the push channel, in this process."""

    def __init__(self, token: str | None) -> None:
        from parlour.asgi import application

        headers = asgi_headers(token)
        scope = {"type": "websocket", "path": "/api/v1/ws", "headers": headers}
        self.talk = ApplicationCommunicator(application, {**scope, "subprotocols": []})

    async def open(self) -> None:
        await self.talk.send_input({"type": "websocket.connect"})
        assert (await self.talk.receive_output(10))["type"] == "websocket.accept"
        assert (await self.next())["type"] == "hello"

    async def ask(self, text: str | None = None, data: bytes | None = None) -> dict[str, Any]:
        """Send a text (or binary) frame: the next frame, which must be a problem."""
        sent: dict[str, Any] = {"type": "websocket.receive"}
        sent.update({"text": text} if text is not None else {"bytes": data})
        await self.talk.send_input(sent)
        frame = await self.next()
        assert frame["type"] == "problem", frame
        return frame

    async def next(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads((await self.talk.receive_output(10))["text"])
        return found

    async def close(self) -> None:
        await self.talk.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.talk.wait(10)


def test_a_problem_frame_is_the_rest_problem_of_the_request_it_stands_for_instance_included(
    world: ClubWorld, api: Api
) -> None:
    """Found by trying (2026-12-08): the channel's problems had no ``instance``."""
    _, game = tournament_game(world, "old_maid", ("alice", "bob", "carol"))
    seat = seat_of_name(world, game, "alice")
    game.refresh_from_db()
    stale = {"action": {"type": "shuffle"}, "expected_sequence": game.sequence + 5, "seat": seat}
    actions, followed = f"/api/v1/games/{game.pk}/actions", f"/api/v1/games/{game.pk}"
    # What the REST API answers the same requests (refused: nothing changes).
    rest_stale = api.post(
        actions, stale, token=world.tokens["alice"], headers={"Idempotency-Key": "ws-1"}
    )[1]
    rest_missing = api.get("/api/v1/games/999999")[1]
    assert rest_stale["instance"] == actions and rest_missing["instance"] == "/api/v1/games/999999"

    async def check() -> dict[str, dict[str, Any]]:
        alice, anonymous = Socket(world.tokens["alice"]), Socket(None)
        await alice.open()
        await anonymous.open()
        try:
            act = {"type": "act", "game": game.pk, "key": "ws-1", **stale}
            return {
                "stale": await alice.ask(json.dumps(act)),
                "anonymous act": await anonymous.ask(json.dumps(act)),
                "missing": await anonymous.ask('{"type": "follow", "game": 999999}'),
                "bad after": await anonymous.ask(
                    json.dumps({"type": "follow", "game": game.pk, "after": -3})
                ),
                "unfollow": await anonymous.ask(
                    json.dumps({"type": "unfollow", "game": game.pk, "x": 1})
                ),
                "not json": await anonymous.ask("not json"),
                "no game": await anonymous.ask('{"type": "dance", "game": 1}'),
            }
        finally:
            await alice.close()
            await anonymous.close()

    frames = asyncio.run(check())
    # The same document as the REST API's, word for word.
    assert frames["stale"]["problem"] == rest_stale
    assert frames["missing"]["problem"] == rest_missing
    instances = {name: frame["problem"].get("instance") for name, frame in frames.items()}
    assert instances == {
        "stale": actions,
        "anonymous act": actions,
        "missing": "/api/v1/games/999999",
        "bad after": followed,
        "unfollow": followed,
        "not json": "/api/v1/ws",
        "no game": "/api/v1/ws",
    }
    assert frames["anonymous act"]["problem"]["status"] == 401
    game.refresh_from_db()
    assert game.sequence == rest_stale["current_sequence"]


def test_acting_in_a_finished_game_is_a_409_game_over_over_rest_and_the_push_channel(
    world: ClubWorld, api: Api
) -> None:
    """Found by review (2026-12-08): an action in a finished game was a ``422
    illegal-action`` while handing its seat to a bot was a ``409 game-over``; acting is
    now refused as that same problem, both ways in, and changes nothing."""
    from tests.service.play import play
    from tournaments.models import Game

    _, game = tournament_game(world, "old_maid", ("alice", "bob", "carol"), deals=2)
    game = play(game)
    assert game.is_over
    following = Game.objects.get(table_id=game.table_id, number_in_series=2)
    seat = seat_of_name(world, game, "alice")
    body = {"action": {"type": "shuffle"}, "expected_sequence": game.sequence, "seat": seat}
    actions = f"/api/v1/games/{game.pk}/actions"
    status, rest, _ = api.post(
        actions, body, token=world.tokens["alice"], headers={"Idempotency-Key": "over-1"}
    )
    assert status == 409 and rest["type"] == "/api/v1/problems/game-over", rest
    assert f"game {game.pk} is over" in rest["detail"] and "next_game_id" in rest["detail"]
    assert rest["instance"] == actions
    russian = api.post(
        actions,
        body,
        token=world.tokens["alice"],
        headers={"Idempotency-Key": "over-ru", "Accept-Language": "ru"},
    )[1]
    assert russian["type"] == rest["type"] and russian["title"] == "Партия окончена", russian
    assert russian["detail"].startswith(f"партия {game.pk} окончена"), russian

    async def check() -> dict[str, Any]:
        alice = Socket(world.tokens["alice"])
        await alice.open()
        try:
            return await alice.ask(
                json.dumps({"type": "act", "game": game.pk, "key": "over-2", **body})
            )
        finally:
            await alice.close()

    assert asyncio.run(check())["problem"] == rest
    for row in (game, following):
        before = row.sequence
        row.refresh_from_db()
        assert row.sequence == before, "nothing was stored"


def test_a_binary_frame_is_refused_as_binary_not_as_too_large(world: ClubWorld) -> None:
    """Found by trying (2026-12-08): a small binary frame was refused with the words for a
    message over 16384 bytes."""

    async def check() -> dict[str, Any]:
        socket = Socket(None)
        await socket.open()
        try:
            return await socket.ask(data=b'{"type": "follow", "game": 1}')
        finally:
            await socket.close()

    problem = asyncio.run(check())["problem"]
    assert problem["status"] == 400 and problem["type"] == "/api/v1/problems/bad-request"
    assert "16384" not in problem["detail"] and "text frame" in problem["detail"]
    assert problem["instance"] == "/api/v1/ws"
