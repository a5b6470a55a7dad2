"""The push channel (``/api/v1/ws``) on a live ASGI server, as a bot or a browser meets it.

Two seats play a whole Old Maid game over one WebSocket each and are pushed every view
the REST API would give them; retries, stale sequences, spectators, bad tokens, foreign
pages and bad messages get the REST API's problem documents; a client that reconnects
misses nothing; and two web processes serve the two players of one table, each pushing
the other's moves (tournaments/api/push.py, docs/api.md "The push channel").
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.api.live import (
    LiveDatabase,
    LiveServer,
    call,
    live_database,
    live_server,
    postgres_of_the_run,
)

pytestmark = pytest.mark.slow  # live servers in child processes

#: Seconds a pushed frame may take to arrive.
ARRIVES = 10.0


@pytest.fixture(scope="module")
def push_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("push")


@pytest.fixture(scope="module")
def push_db(push_tmp: Path) -> Iterator[LiveDatabase]:
    with live_database(push_tmp, postgres_of_the_run()) as database:
        yield database


@pytest.fixture(scope="module")
def server(push_db: LiveDatabase, push_tmp: Path) -> Iterator[LiveServer]:
    with live_server(push_db, push_tmp, "gunicorn") as found:
        yield found


class Socket:
    """One client's WebSocket: JSON messages out, frames collected as they come."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        #: Every frame received, and those received but not yet taken by :meth:`next`.
        self.frames: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []

    async def send(self, **message: Any) -> None:
        await self.ws.send_str(json.dumps(message))

    async def follow(self, game: int, **message: Any) -> dict[str, Any]:
        """Follow ``game`` (``after``…): the view it is sent first, which must come next."""
        await self.send(type="follow", game=game, **message)
        frame = await self.next()
        assert frame["type"] == "view" and frame["game"] == game, frame
        view: dict[str, Any] = frame["view"]
        return view

    async def next(self, wanted: Any = None, seconds: float = ARRIVES) -> dict[str, Any]:
        """The first frame not taken yet (of those ``wanted(frame)`` accepts), waiting at most
        ``seconds`` for it: frames may come in any order (a push before a move's answer)."""
        for index, frame in enumerate(self.pending):
            if wanted is None or wanted(frame):
                return self.pending.pop(index)
        seen = len(self.frames)
        try:
            async with asyncio.timeout(seconds):
                while True:
                    message = await self.ws.receive()
                    if message.type != aiohttp.WSMsgType.TEXT:
                        raise AssertionError(f"the socket ended: {message.type} {message.data}")
                    found: dict[str, Any] = json.loads(message.data)
                    self.frames.append(found)
                    if wanted is None or wanted(found):
                        return found
                    self.pending.append(found)
        except TimeoutError:
            if wanted is None:
                raise
            came = self.frames[seen:]
            raise AssertionError(f"not pushed in {seconds}s; came meanwhile: {came}") from None


async def connect(
    session: aiohttp.ClientSession, url: str, token: str | None = None, **headers: str
) -> Socket:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    ws = await session.ws_connect(url.replace("http", "ws", 1) + "/api/v1/ws", headers=headers)
    socket = Socket(ws)
    hello = await socket.next()
    assert hello["type"] == "hello", hello
    return socket


def without_clock(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what changes by the second (the server's time, the clocks' remainders)."""
    found = dict(view)
    found.pop("server_time", None)
    found["deadlines"] = [
        {k: v for k, v in d.items() if k != "remaining_ms"} for d in view["deadlines"]
    ]
    return found


def view_from(sequence: int) -> Any:
    """A frame test: a view at ``sequence`` or later."""
    return lambda f: f["type"] == "view" and f["sequence"] >= sequence


def the_move(view: dict[str, Any]) -> dict[str, Any]:
    """The action a seat waited for makes: a draw when there is one, else the first."""
    actions = view["legal_actions"]
    return next((a for a in actions if a["type"] == "draw"), actions[0])


def test_two_seats_play_a_whole_game_over_the_push_channel_seeing_what_the_api_shows(
    push_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = push_db.seeded
    game = seeded["push"]["game"]
    tokens = {name: seeded["tokens"][name] for name in ("eli", "fay")}

    async def play() -> dict[str, list[dict[str, Any]]]:
        pushed: dict[str, list[dict[str, Any]]] = {"eli": [], "fay": []}
        async with aiohttp.ClientSession() as session:
            sockets = {
                name: await connect(session, server.url, token) for name, token in tokens.items()
            }
            for socket in sockets.values():
                await socket.send(type="follow", game=game)
            views = {}
            for name, socket in sockets.items():
                frame = await socket.next(lambda f: f["type"] == "view")
                views[name] = frame["view"]
                pushed[name].append(frame)
            answered: dict[str, set[int]] = {"eli": set(), "fay": set()}
            for _ in range(200):
                if all(v["status"] == "over" for v in views.values()):
                    # The mover's answer carried its new view: it was not pushed it again.
                    for name, socket in sockets.items():
                        again = [
                            f["sequence"]
                            for f in socket.frames
                            if f["type"] == "view" and f["sequence"] in answered[name]
                        ]
                        assert not again, (name, again)
                    return pushed
                # Whoever is waited for moves and gets the new view as its answer ("acted");
                # the other is pushed it, with no request of its own.
                name = next(n for n, v in views.items() if v["seat"] in v["waiting_for"])
                view = views[name]
                key = f"push-{uuid.uuid4()}"
                await sockets[name].send(
                    type="act",
                    game=game,
                    key=key,
                    expected_sequence=view["sequence"],
                    action=the_move(view),
                )
                acted = await sockets[name].next(lambda f: f["type"] in ("acted", "problem"))
                assert acted["type"] == "acted" and acted["key"] == key, acted
                assert acted["replayed"] is False
                answered[name].add(acted["sequence"])
                for other, socket in sockets.items():
                    if other == name:
                        frame = {"sequence": acted["sequence"], "view": acted["view"]}
                    else:
                        frame = await socket.next(view_from(acted["sequence"]))
                        pushed[other].append(frame)
                    views[other] = frame["view"]
                    # Between moves nothing changes: the REST API shows this seat the same.
                    status, shown = call(
                        server.url, "GET", f"/api/v1/games/{game}", token=tokens[other]
                    )
                    assert status == 200 and shown["sequence"] == frame["sequence"]
                    assert without_clock(frame["view"]) == without_clock(shown), other
            raise AssertionError("the game did not end in 200 moves")

    pushed = asyncio.run(play())
    # The game was played to its end, every seat being pushed each other seat's move's
    # view in order (the last move's, the game over, too, to whoever did not make it).
    for name, frames in pushed.items():
        sequences = [f["sequence"] for f in frames]
        assert sequences == sorted(set(sequences)), (name, sequences)
    assert any(frames[-1]["view"]["status"] == "over" for frames in pushed.values())
    # Each seat was pushed its own view only (the REST API's redaction, compared above
    # frame by frame): never the other seat's cards.
    for name, frames in pushed.items():
        for frame in frames:
            assert frame["view"]["seat"] == frames[0]["view"]["seat"], name


def test_retries_conflicts_spectators_and_bad_messages_answer_as_the_rest_api(
    push_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = push_db.seeded
    game = seeded["push_retry"]["game"]

    async def check() -> None:
        async with aiohttp.ClientSession() as session:
            seats = {}
            for name in ("eli", "fay"):
                socket = await connect(session, server.url, seeded["tokens"][name])
                seats[name] = (socket, await socket.follow(game))
            name = next(n for n, (_, v) in seats.items() if v["seat"] in v["waiting_for"])
            socket, view = seats[name]
            move = {"expected_sequence": view["sequence"], "action": the_move(view)}
            await socket.send(type="act", game=game, key="same-key", **move)
            first = await socket.next(lambda f: f["type"] in ("acted", "problem"))
            assert first["type"] == "acted" and first["replayed"] is False, first
            # The same key again: the first outcome, replayed, one move stored.
            await socket.send(type="act", game=game, key="same-key", **move)
            again = await socket.next(lambda f: f["type"] in ("acted", "problem"))
            assert again["type"] == "acted" and again["replayed"] is True
            assert again["sequence"] == first["sequence"]
            # ... and over the REST API with that key too: one namespace of keys.
            status, body = call(
                server.url,
                "POST",
                f"/api/v1/games/{game}/actions",
                move,
                token=seeded["tokens"][name],
                headers={"Idempotency-Key": "same-key"},
            )
            assert status == 200 and body["replayed"] is True
            # A stale sequence with a new key: the REST API's 409 problem.
            await socket.send(type="act", game=game, key="new-key", **move)
            stale = await socket.next(lambda f: f["type"] == "problem")
            assert stale["key"] == "new-key" and stale["game"] == game
            assert stale["problem"]["status"] == 409
            assert stale["problem"]["current_sequence"] >= first["sequence"]
            # A key that is not text: refused naming the message's own field.
            await socket.send(type="act", game=game, key=5, **move)
            unkeyed = await socket.next(lambda f: f["type"] == "problem")
            assert unkeyed["problem"]["status"] == 400 and unkeyed["problem"]["field"] == "key"
            # Another seat's move, or a spectator's: 403 and 401, nothing stored.
            other = next(n for n in seats if n != name)
            await seats[other][0].send(
                type="act", game=game, key="k2", seat=seats[name][1]["seat"], **move
            )
            assert (await seats[other][0].next(lambda f: f["type"] == "problem"))["problem"][
                "status"
            ] == 403
            spectator = await connect(session, server.url)
            assert (await spectator.follow(game))["seat"] is None
            await spectator.send(type="act", game=game, key="k3", **move)
            assert (await spectator.next())["problem"]["status"] == 401
            # Bad messages: problems, and the connection goes on.
            for text, status in (
                ("not json", 400),
                ("[" * 100_000, 400),
                ('{"type": "dance", "game": 1}', 400),
                ('{"type": "follow", "game": 999999999999}', 404),
                ('{"type": "follow"}', 400),
                ('{"type": "follow", "game": 1, "after": -3}', 400),  # as ?after=-3 is
                ('{"type": "follow", "game": 1, "after": 2147483648}', 400),
                ('{"type": "follow", "game": 1, "afterr": 5}', 400),  # not left out
                ("x" * 20_000, 400),
            ):
                await spectator.ws.send_str(text)
                found = await spectator.next()
                assert found["type"] == "problem", (text[:30], found)
                assert found["problem"]["status"] == status, (text[:30], found)
            # Russian, as the REST API answers an Accept-Language of ru.
            russian = await connect(session, server.url, **{"Accept-Language": "ru"})
            await russian.send(type="follow", game=999999)
            refused = await russian.next()
            detail = refused["problem"]["detail"]
            assert refused["problem"]["status"] == 404 and "999999" in detail
            assert any("\u0400" <= ch <= "\u04ff" for ch in detail), refused
            # ... and the refusals worded by the channel itself (its messages' fields).
            for text in ('{"type": "dance", "game": 1}', '{"type": "follow", "game": "x"}'):
                await russian.ws.send_str(text)
                field = (await russian.next())["problem"]["errors"][0]["detail"]
                assert any("\u0400" <= ch <= "\u04ff" for ch in field), (text, field)
            await russian.ws.send_str("not json")  # Python's own words were sent
            detail = (await russian.next())["problem"]["detail"]
            assert any("\u0400" <= ch <= "\u04ff" for ch in detail.split(":")[0]), detail
            status, after = call(server.url, "GET", f"/api/v1/games/{game}")
            assert after["sequence"] == first["sequence"]  # the refused moves stored nothing

    asyncio.run(check())


def test_a_bad_token_is_refused_and_a_foreign_page_acts_as_nobody(
    push_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = push_db.seeded

    async def check() -> None:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(
                server.url.replace("http", "ws") + "/api/v1/ws",
                headers={"Authorization": "Bearer prl_not-a-token"},
            )
            refused = json.loads((await ws.receive()).data)
            assert refused["type"] == "problem" and refused["problem"]["status"] == 401
            closed = await ws.receive()
            assert closed.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4401
            # A browser session works from this site's pages only: a page elsewhere that
            # opens the socket with the visitor's cookie is anonymous.
            # (unsafe: the jar keeps cookies of an address such as 127.0.0.1)
            login = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            async with login:
                await login.get(server.url + "/accounts/login/")
                token = next(c.value for c in login.cookie_jar if c.key == "csrftoken")
                await login.post(
                    server.url + "/accounts/login/",
                    data={
                        "username": "eli",
                        "password": seeded["password"],
                        "csrfmiddlewaretoken": token,
                    },
                    headers={"Referer": server.url + "/accounts/login/"},
                )
                assert "sessionid" in {c.key for c in login.cookie_jar}
                here = await connect(login, server.url, Origin=server.url)
                assert here.frames[0]["user"] == "eli"
                elsewhere = await connect(login, server.url, Origin="https://evil.example")
                assert elsewhere.frames[0]["user"] is None

    asyncio.run(check())


def test_a_client_that_reconnects_is_sent_what_it_missed(
    push_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = push_db.seeded
    game = seeded["push_retry"]["game"]

    async def check() -> None:
        async with aiohttp.ClientSession() as session:
            status, view = call(server.url, "GET", f"/api/v1/games/{game}")
            assert status == 200
            now = view["sequence"]
            socket = await connect(session, server.url)
            # Following from an earlier sequence: the view now, at once.
            await socket.send(type="follow", game=game, after=now - 1)
            frame = await socket.next()
            assert frame["type"] == "view" and frame["sequence"] == now
            # From the sequence it has: nothing until the game moves.
            await socket.send(type="follow", game=game, after=now)
            with pytest.raises(TimeoutError):
                await socket.next(seconds=1.0)

    asyncio.run(check())


def test_two_web_processes_push_each_other_s_moves_to_the_players_of_one_table(
    push_db: LiveDatabase, push_tmp: Path, server: LiveServer
) -> None:
    seeded = push_db.seeded
    game = seeded["push_scale"]["game"]
    with live_server(push_db, push_tmp, "gunicorn", workers=1) as second:

        async def check() -> None:
            async with aiohttp.ClientSession() as session:
                urls = {"eli": server.url, "fay": second.url}
                sockets = {n: await connect(session, urls[n], seeded["tokens"][n]) for n in urls}
                views = {}
                for name, socket in sockets.items():
                    views[name] = await socket.follow(game)
                for _ in range(4):
                    if views["eli"]["status"] == "over":
                        return
                    name = next(n for n, v in views.items() if v["seat"] in v["waiting_for"])
                    other = next(n for n in views if n != name)
                    view = views[name]
                    await sockets[name].send(
                        type="act",
                        game=game,
                        key=str(uuid.uuid4()),
                        expected_sequence=view["sequence"],
                        action=the_move(view),
                    )
                    acted = await sockets[name].next(lambda f: f["type"] in ("acted", "problem"))
                    assert acted["type"] == "acted", acted
                    # The other player, on the other process, is pushed the move.
                    pushed = await sockets[other].next(view_from(acted["sequence"]))
                    views[other] = pushed["view"]
                    views[name] = acted["view"]

        asyncio.run(check())


def test_a_token_holds_at_most_its_open_streams_in_sockets_and_a_closed_one_gives_its_slot_back(
    push_db: LiveDatabase, push_tmp: Path
) -> None:
    seeded = push_db.seeded
    # One process, so that the slots are counted in one place whatever the cache is.
    with live_server(
        push_db, push_tmp, "gunicorn", workers=1, env={"PARLOUR_OPEN_STREAMS_PER_TOKEN": "3"}
    ) as one:

        async def check() -> None:
            async with aiohttp.ClientSession() as session:
                token = seeded["tokens"]["gus"]
                held = [await connect(session, one.url, token) for _ in range(3)]
                ws = await session.ws_connect(
                    one.url.replace("http", "ws") + "/api/v1/ws",
                    headers={"Authorization": f"Bearer {token}"},
                )
                refused = json.loads((await ws.receive()).data)
                assert refused["problem"]["status"] == 429, refused
                assert "3 streams" in refused["problem"]["detail"]
                assert (await ws.receive()).type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == 4429
                # At once again: the same refusal (given again without asking the cache).
                ws = await session.ws_connect(
                    one.url.replace("http", "ws") + "/api/v1/ws",
                    headers={"Authorization": f"Bearer {token}"},
                )
                again = json.loads((await ws.receive()).data)
                assert again["problem"]["detail"] == refused["problem"]["detail"], again
                assert (await ws.receive()).type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == 4429
                await held.pop().ws.close()
                await held.pop().ws.close()
                for _ in range(50):  # the slots go back as the server sees the closes
                    await asyncio.sleep(0.1)
                    ws = await session.ws_connect(
                        one.url.replace("http", "ws") + "/api/v1/ws",
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    if json.loads((await ws.receive()).data)["type"] == "hello":
                        break
                else:
                    raise AssertionError("the closed sockets' slots never came back")
                # A follow is a stream too, but a socket's first follow is carried by the
                # socket's own slot (a page of one game holds one slot, as its SSE stream
                # did): two sockets, then a second follow on one fill the three slots.
                socket = held[0]
                # (Games nobody moves here, running: an over game's follow ends at once.)
                games = [
                    seeded["duel_wsgi"]["game"],
                    seeded["duel_asgi"]["game"],
                    seeded["push"]["game"],
                ]
                await socket.follow(games[0])
                await socket.follow(games[1])
                await socket.send(type="follow", game=games[2])
                refused = await socket.next()
                assert refused["type"] == "problem" and refused["game"] == games[2]
                assert refused["problem"]["status"] == 429
                # Following the same game again (from another sequence) takes no new slot;
                # an unfollow gives its slot back.
                await socket.follow(games[0], after=-1)
                await socket.send(type="unfollow", game=games[0])
                await socket.follow(games[2])

        asyncio.run(check())


def test_a_handshake_for_a_host_not_allowed_is_refused(server: LiveServer) -> None:
    async def check() -> None:
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(
                    server.url.replace("http", "ws") + "/api/v1/ws",
                    headers={"Host": "evil.example"},
                )
            assert refused.value.status == 403

        asyncio.run(check())


def test_a_revoked_token_is_cut_off_an_open_socket_before_its_next_move_and_soon_from_its_pushes(
    push_db: LiveDatabase, server: LiveServer
) -> None:
    seeded = push_db.seeded
    game = seeded["duel_wsgi"]["game"]  # running, and nobody moves it here

    def new_token() -> tuple[int, str]:
        import base64

        basic = base64.b64encode(f"eli:{seeded['password']}".encode()).decode()
        status, made = call(
            server.url,
            "POST",
            "/api/v1/tokens",
            {"name": "push"},
            headers={"Authorization": f"Basic {basic}"},
        )
        assert status == 201, made
        return int(made["id"]), str(made["key"])

    def revoke(token: tuple[int, str]) -> None:
        status, _ = call(server.url, "DELETE", f"/api/v1/tokens/{token[0]}", token=token[1])
        assert status == 204

    async def check() -> None:
        async with aiohttp.ClientSession() as session:
            # A move after the revocation: refused, and the socket closed.
            token = new_token()
            socket = await connect(session, server.url, token[1])
            revoke(token)
            await socket.send(
                type="act",
                game=game,
                key="after-revoke",
                expected_sequence=1,
                action={"type": "draw", "index": 0},
            )
            refused = await socket.next()
            assert refused["problem"]["status"] == 401 and refused["key"] == "after-revoke"
            assert (await socket.ws.receive()).type == aiohttp.WSMsgType.CLOSE
            assert socket.ws.close_code == 4401
            # Pushes to a follower: within a few seconds of the revocation.
            token = new_token()
            socket = await connect(session, server.url, token[1])
            await socket.follow(game)
            revoke(token)
            ended = await socket.next(seconds=20)
            assert ended["problem"]["status"] == 401 and ended["game"] == game
            assert (await socket.ws.receive()).type == aiohttp.WSMsgType.CLOSE

    asyncio.run(check())
