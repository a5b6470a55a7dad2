"""The floor of a durable move on this stack's own parts (issue 24): a prototype, not the product.

    .venv/bin/python bench/lean_floor.py [--levels 8,32,128] [--seconds 15] [--warmup 3]
                                         [--redis-checks] [--processes 1] [--connections 4]

docs/benchmarks.md ("What the goal would take") names what a move would have to become to
spend no more server CPU than boardgame.io on FlatFile.  This is that move built as small as
it can be, on the real schema, and played by bench/load.py's own players
(:func:`bench.faults.players.run_players` over the push channel's frames: ``follow``,
``act``, ``acted``, ``view``), so that its figures stand beside bench/load.py's:

* uvicorn serving a bare ASGI WebSocket app (no Django, no Channels, no thread);
* each game's state held in the server process, folded once and moved by the engine, as
  the game service does (:mod:`tournaments.play.commands`);
* the move's writes as one statement on an async psycopg connection in the event loop,
  committed before the move is answered: the store's conditional ``INSERT`` of the events
  (the store's own columns), the projection's ``UPDATE`` and an account notice's
  ``INSERT`` (bench/round_trips.py's statement); a deal's end writes the next game's row
  and its deal in the same transaction;
* the mover's answer and the other seat's view built from that same state.

``--redis-checks`` adds the Redis commands a product's move cannot drop, with the product's
own scripts: the request rates' count before the move, the publish after it.
``--processes N`` runs N such processes on one socket: each publishes its moves, and each
follows the others' (the new events read from the store and folded, the views pushed); a
move decided on a state another process had moved past is refused by the conditional
``INSERT`` and answered as a conflict, with the view caught up.  ``--connections``: each
process's PostgreSQL connections, one statement at a time on each.

What it leaves out, each of which the product pays for: the sign-in's re-check (a token is
looked up once, at the handshake), the request rates on messages other than moves, the
idempotency key's look-up on a refusal and the replayed answer, the views' names and
context, the series' totals and the next deal's seed commitment (the deck is shuffled by
the system's generator), a deal's per-seat notices, clocks and bots' queueing.  So its
CPU a move is a floor for that design, not a product's figure.

It makes its own database (``--database``, dropped at the end) and tables of two people
(:func:`bench.faults.players.person_tables`), then for each level starts the server,
plays, and prints moves a second, the move's latency and the CPU a move of the server's
processes, of PostgreSQL (as bench/load.py counts it) and of Redis, from the end of the
players' warm-up.  docs/benchmarks.md ("The floor of that design, measured") records its
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.players import latency_line, person_tables, run_players  # noqa: E402
from bench.faults.stack import Stack, free_port  # noqa: E402
from bench.load import group_cpu, postgres_cpu  # noqa: E402
from bench.push_move import backend_cpu  # noqa: E402


def named_cpu(name: str) -> float:
    """CPU seconds the machine's processes called ``name`` (the Redis server) have used."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() == name:
                total += backend_cpu(int(entry.name))
        except OSError:
            continue
    return total


def cpu_now(server: int) -> tuple[float, float, float]:
    """The CPU seconds of the server's processes (its process group), of PostgreSQL (as
    bench/load.py counts them: exited backends too) and of Redis."""
    return group_cpu(server), postgres_cpu(), named_cpu("redis-server")


# -- the server (a child process: ``lean_floor.py serve SETUP.json``) ---------------------------


class Live:
    """One game as the server holds it: its state at ``sequence`` and who sits where."""

    def __init__(self, game_id: int, engine: Any, state: Any, sequence: int, users: list[int]):
        self.id = game_id
        self.stream = f"game-{game_id}"
        self.engine = engine
        self.state = state
        self.sequence = sequence
        self.users = users
        self.next_id: int | None = None
        #: Followers: user id -> send, for the connections following this game.
        self.followers: dict[int, Any] = {}

    def view(self, seat: int) -> dict[str, Any]:
        view = self.engine.view(self.state, seat)
        over = self.engine.is_over(self.state)
        view.update(
            {
                "game_id": self.id,
                "seat": seat,
                "status": "over" if over else "running",
                "sequence": self.sequence,
                "next_game_id": self.next_id,
            }
        )
        return view

    def frame(self, seat: int) -> dict[str, Any]:
        return {"type": "view", "game": self.id, "sequence": self.sequence, "view": self.view(seat)}

    async def push(self, mover: int | None) -> None:
        """Each follower's new view but the ``mover``'s (answered with its move)."""
        for user, send in list(self.followers.items()):
            if user != mover:
                await send(self.frame(self.users.index(user)))


class Stale(Exception):
    """The game moved on in another process: this one's state was behind."""


#: The channel the server processes tell each other's followers of a move on (``--processes``).
MOVES = "lean-floor-moves"


class Server:
    """The games, the statements and the connection of the server process."""

    def __init__(self, setup: dict[str, Any]) -> None:
        from events.store import _COLUMNS

        self.setup = setup
        self.columns = _COLUMNS
        self.tokens: dict[str, int] = {t: int(u) for t, u in setup["tokens"].items()}
        self.games: dict[int, Live] = {}
        self.connection: Any = None
        self.rng = random.SystemRandom()
        #: The connections a move's statement is sent on: each takes one at a time.
        self.idle: asyncio.Queue[Any] = asyncio.Queue()

    async def start(self) -> None:
        import psycopg
        import redis.asyncio

        async def connect() -> Any:
            url = self.setup["database_url"]
            return await psycopg.AsyncConnection.connect(url, autocommit=True, prepare_threshold=0)

        for _ in range(self.setup["connections"]):
            self.idle.put_nowait(await connect())
        #: This process's own connection for its reads: the start's, the catch-ups.
        self.connection = await connect()
        self.redis = redis.asyncio.from_url(self.setup["redis_url"])
        if self.setup["redis_checks"]:
            from tournaments.api.throttling import _COUNT
            from tournaments.workers.notify import _PUBLISH

            self.count = self.redis.register_script(_COUNT.text)
            self.publish = self.redis.register_script(_PUBLISH.text)
        for game_id, users in self.setup["games"].items():
            self.games[int(game_id)] = await self.load(int(game_id), users)
        async with self.connection.cursor() as cursor:
            await cursor.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = 'tournaments_game'"
                " AND column_name <> 'id'"
            )
            self.game_columns = [row[0] for row in await cursor.fetchall()]
        if self.setup["processes"] > 1:
            self.listener = asyncio.get_running_loop().create_task(self.listen())

    def chance(self, engine: Any, state: Any, payloads: list[dict[str, Any]]) -> Any:
        """The chance outcomes due at ``state`` drawn and added to ``payloads`` (as
        :func:`tournaments.play.commands._chance_events`); the state after them."""
        while not engine.is_over(state):
            node = engine.chance_draw(state, self.rng)
            if node is None:
                break
            for event in engine.decide(state, node[0], node[1], chance=True):
                state = engine.evolve(state, event)
                payloads.append(event)
        return state

    async def move(self, live: Live, seat: int, action: dict[str, Any], key: str) -> None:
        """Decide, write in one statement, and hold the new state (raises on a refusal)."""
        from events.store import NewEvent, _insert_params, _insert_statement

        engine, state = live.engine, live.state
        now = datetime.now(UTC)
        request, chance = engine.request(state, seat, action, self.rng)
        payloads = []
        for event in engine.decide(state, seat, request, chance=chance):
            state = engine.evolve(state, event)
            payloads.append(event)
        decided = len(payloads)
        state = self.chance(engine, state, payloads)
        over = engine.is_over(state)
        sequence = live.sequence + len(payloads)
        # The store's own statement and parameters (:func:`events.store._insert`'s), the
        # events caused as the game service causes them.
        new = [NewEvent(p["type"], p, "player", str(seat), p.get("v", 1)) for p in payloads]
        new[decided:] = [
            NewEvent(p["type"], p, "system", "chance", p.get("v", 1)) for p in payloads[decided:]
        ]
        appended, _ = _insert_params(live.stream, new, live.sequence, key, "0" * 64, now)
        waiting = json.dumps(engine.waiting_for(state))
        outcome = json.dumps(engine.outcome(state)) if over else None
        waiter = live.users[engine.waiting_for(state)[0]] if not over else live.users[seat]
        statement = (
            "WITH appended AS ("
            + _insert_statement(len(payloads), postgres=True)
            + "), moved AS (UPDATE tournaments_game SET sequence = %s,"
            " last_event = (SELECT MAX(id) FROM appended), last_event_at = %s,"
            " to_act = %s::jsonb, waiting_for = %s::jsonb, status = %s, result = %s::jsonb,"
            " finished_at = %s WHERE id = %s AND EXISTS (SELECT 1 FROM appended)),"
            " noticed AS (INSERT INTO tournaments_accountnotice"
            " (user_id, game_id, seat, sequence, kind)"
            " SELECT %s, %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM appended))"
            " SELECT COUNT(*) FROM appended"
        )
        params = [
            *appended,
            sequence,
            now,
            waiting,
            waiting,
            "over" if over else "running",
            outcome,
            now if over else None,
            live.id,
            waiter,
            live.id,
            seat,
            sequence,
            "finished" if over else "turn",
        ]
        following = self.next_deal(live, state) if over else None
        connection = await self.idle.get()
        try:
            # A move in autocommit; a deal's end and the next deal in one transaction, as
            # the series hook's.
            one = connection.transaction() if following is not None else contextlib.nullcontext()
            async with one, connection.cursor() as cursor:
                await cursor.execute(statement, params, prepare=True)
                (count,) = await cursor.fetchone()
                if count != len(payloads):
                    raise Stale(live.stream)
                if following is not None:
                    await cursor.execute(following[0], following[1], prepare=True)
                    (stream,) = await cursor.fetchone()
        finally:
            self.idle.put_nowait(connection)
        live.state, live.sequence = state, sequence
        if following is not None:
            new = Live(int(stream.split("-")[1]), engine, following[2], following[3], live.users)
            self.games[new.id] = new
            live.next_id = new.id
        if self.setup["processes"] > 1:  # the followers in the other processes
            await self.redis.publish(MOVES, f"{live.id}:{live.sequence}:{live.next_id or 0}")

    async def catch_up(self, live: Live) -> None:
        """Fold the events another process appended to ``live``'s stream since its sequence."""
        async with self.connection.cursor() as cursor:
            await cursor.execute(
                "SELECT sequence, payload FROM events_event WHERE stream = %s AND sequence > %s"
                " ORDER BY sequence",
                [live.stream, live.sequence],
                prepare=True,
            )
            rows = await cursor.fetchall()
        for sequence, payload in rows:
            if sequence == live.sequence + 1:  # a catch-up at the same time may have folded it
                live.state = live.engine.evolve(live.state, payload)
                live.sequence = sequence

    async def listen(self) -> None:
        """Another process's moves: each game followed here caught up and its views pushed."""
        subscription = self.redis.pubsub(ignore_subscribe_messages=True)
        await subscription.subscribe(MOVES)
        async for message in subscription.listen():
            game_id, sequence, next_id = (int(x) for x in message["data"].split(b":"))
            live = self.games.get(game_id)
            if live is None:
                continue
            if next_id and next_id not in self.games:
                self.games[next_id] = await self.load(next_id, live.users)
                live.next_id = next_id
            if live.sequence >= sequence or not live.followers:
                continue  # caught up when a client here acts or follows it
            await self.catch_up(live)
            await live.push(None)

    async def load(self, game_id: int, users: list[int]) -> Live:
        """Game ``game_id`` folded from its stream."""
        from engine.registry import get_game

        async with self.connection.cursor() as cursor:
            await cursor.execute("SELECT kind FROM tournaments_game WHERE id = %s", [game_id])
            (kind,) = await cursor.fetchone()
            await cursor.execute(
                "SELECT payload FROM events_event WHERE stream = %s ORDER BY sequence",
                [f"game-{game_id}"],
            )
            payloads = [row[0] for row in await cursor.fetchall()]
        engine = get_game(kind)
        return Live(game_id, engine, engine.fold(payloads), len(payloads), users)

    def next_deal(self, live: Live, ended: Any) -> tuple[str, list[Any], Any, int]:
        """The next deal at the table as one statement (its game row and its deal), with its
        parameters, its state and its sequence."""
        engine = live.engine
        deck = list(engine.deck)
        self.rng.shuffle(deck)
        seats = engine.seat_count(ended)
        payloads = engine.deal(seats, self.rng.randrange(seats), deck)
        state = engine.fold(payloads)
        state = self.chance(engine, state, payloads)
        overrides = {
            "sequence": "%s",
            "status": "'running'",
            "dealer": "%s",
            "to_act": "%s::jsonb",
            "waiting_for": "%s::jsonb",
            "created_at": "now()",
            "finished_at": "NULL",
            "result": "NULL",
            "last_event": "0",  # the event is written after the row (its stream names it)
            "last_event_at": "now()",
            "deadlines": "'{}'::jsonb",
            "commitment": "''",
            "seed": "''",
            "number_in_series": "number_in_series + 1",
        }
        chosen = ", ".join(overrides.get(c, c) for c in self.game_columns)
        waiting = json.dumps(engine.waiting_for(state))
        rows = ", ".join(["(%s::integer, %s::varchar, %s::smallint, %s::jsonb)"] * len(payloads))
        statement = (
            f"WITH made AS (INSERT INTO tournaments_game ({', '.join(self.game_columns)})"
            f" SELECT {chosen} FROM tournaments_game WHERE id = %s RETURNING id)"
            f" INSERT INTO events_event ({self.columns})"
            " SELECT 'game-' || made.id, d.sequence, d.type, d.version, d.payload, 'system',"
            " 'series', now(), NULL, '', %s FROM made, (VALUES " + rows + ") AS d"
            " (sequence, type, version, payload) RETURNING stream"
        )
        params: list[Any] = []
        for column in self.game_columns:  # the overrides' parameters, in the columns' order
            if column == "sequence":
                params.append(len(payloads))
            elif column == "dealer":
                params.append(payloads[0]["dealer"])
            elif column in ("to_act", "waiting_for"):
                params.append(waiting)
        params += [live.id, len(payloads)]
        for number, payload in enumerate(payloads, 1):
            params += [number, payload["type"], payload.get("v", 1), json.dumps(payload)]
        return statement, params, state, len(payloads)

    async def connection_of(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """One client: its follows and its moves, until it goes."""
        headers = dict(scope["headers"])
        token = headers.get(b"authorization", b"").split()[-1:]
        user = self.tokens.get(token[0].decode()) if token else None
        if (await receive())["type"] != "websocket.connect":
            return
        if user is None:
            await send({"type": "websocket.close", "code": 4401})
            return
        await send({"type": "websocket.accept"})
        followed: set[int] = set()

        async def frame(content: dict[str, Any]) -> None:
            await send({"type": "websocket.send", "text": orjson.dumps(content).decode()})

        try:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return
                body = orjson.loads(message.get("text") or message.get("bytes") or b"{}")
                live = self.games.get(body.get("game"))
                if live is None or user not in live.users:
                    await frame({"type": "problem", "problem": {"status": 404}})
                    continue
                seat = live.users.index(user)
                kind = body.get("type")
                several = self.setup["processes"] > 1
                if kind == "follow":
                    live.followers[user] = frame
                    followed.add(live.id)
                    if several:  # another process may have moved it
                        await self.catch_up(live)
                    if live.sequence > body.get("after", -1):
                        await frame(live.frame(seat))
                elif kind == "unfollow":
                    live.followers.pop(user, None)
                    followed.discard(live.id)
                elif kind == "act":
                    key = body.get("key")
                    refused: dict[str, Any] | None = None
                    if several and body.get("expected_sequence", 0) > live.sequence:
                        await self.catch_up(live)  # its publish is on its way here
                    if body.get("expected_sequence") != live.sequence:
                        refused = {"status": 409, "current_sequence": live.sequence}
                    else:
                        if self.setup["redis_checks"]:  # the request rates' count
                            keys = [f"rate:user:{user}", "rate:address"]
                            await self.count(keys=keys, args=[60, 60])
                        try:
                            await self.move(live, seat, body["action"], key)
                        except Stale:
                            await self.catch_up(live)
                            refused = {"status": 409, "current_sequence": live.sequence}
                        except Exception as error:  # noqa: BLE001 - a refusal, as a problem
                            refused = {"status": 422, "detail": str(error)}
                    if refused is not None:
                        answer = {"type": "problem", "game": live.id, "key": key}
                        await frame(answer | {"problem": refused})
                        if refused["status"] == 409:
                            await frame(live.frame(seat))
                        continue
                    if self.setup["redis_checks"] and not several:
                        # The product's publish (with several processes, move() publishes).
                        waiter = live.users[(live.engine.waiting_for(live.state) or [seat])[0]]
                        await self.publish(
                            args=[
                                f"game:{live.id}",
                                str(live.sequence),
                                f"user:{waiter}",
                                str(live.id),
                            ]
                        )
                    await frame(
                        {
                            "type": "acted",
                            "game": live.id,
                            "key": key,
                            "replayed": False,
                            "sequence": live.sequence,
                            "view": live.view(seat),
                        }
                    )
                    await live.push(user)
        finally:
            for game_id in followed:
                game = self.games.get(game_id)
                if game is not None:
                    game.followers.pop(user, None)


def application() -> Any:
    """The bare ASGI app of one server process (uvicorn's factory): the games of the setup
    file ``$LEAN_FLOOR_SETUP``."""
    import django

    django.setup()  # for the store's columns and the engine's words, read once: not on the path
    server = Server(json.loads(Path(os.environ["LEAN_FLOOR_SETUP"]).read_text()))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await server.start()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        elif scope["type"] == "websocket":
            await server.connection_of(scope, receive, send)

    return app


def serve(setup_path: str, port: int, processes: int) -> None:
    """The server: uvicorn on ``port``, ``processes`` processes sharing its socket."""
    import uvicorn

    os.environ["LEAN_FLOOR_SETUP"] = setup_path
    uvicorn.run(
        "bench.lean_floor:application",
        factory=True,
        host="127.0.0.1",
        port=port,
        workers=processes,
        log_level="warning",
        lifespan="on",
    )


# -- the run ------------------------------------------------------------------------------------


def setup_tables(stack: Stack, level: int, args: argparse.Namespace) -> tuple[Path, list[Any]]:
    """``level`` people at tables of two; the server's setup written to a file."""
    from tournaments.models import Game, Player
    from tournaments.services.access import seat_player_ids

    _, seats = person_tables(f"lean{level}", level // 2, people_per_table=2, bots_per_table=0)
    games: dict[str, list[int]] = {}
    for game_id in sorted({s.game for s in seats}):
        game = Game.objects.get(pk=game_id)
        players = seat_player_ids(game)
        users = dict(Player.objects.filter(pk__in=players).values_list("pk", "user_id"))
        games[str(game_id)] = [users[p] for p in players]
    setup = {
        "database_url": stack.database_url,
        "connections": args.connections,
        "redis_url": stack.cache_url,
        "redis_checks": args.redis_checks,
        "processes": args.processes,
        "tokens": {s.token: s.user_id for s in seats},
        "games": games,
    }
    path = stack.folder / f"lean-{level}.json"
    path.write_text(json.dumps(setup))
    return path, seats


def run_level(stack: Stack, level: int, args: argparse.Namespace) -> str:
    from django.db import connections

    seconds, warmup = args.seconds, args.warmup
    path, seats = setup_tables(stack, level, args)
    connections.close_all()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "serve", str(path), "--port", str(port)]
        + ["--processes", str(args.processes)],
        env=stack.env,
        start_new_session=True,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        marks: list[tuple[float, float, float]] = []
        # The CPU counted from the end of the players' warm-up, as their moves are.
        timer = threading.Timer(warmup, lambda: marks.append(cpu_now(server.pid)))
        timer.start()
        record, wall, client_cpu = run_players(
            f"http://127.0.0.1:{port}", seats, seconds, warmup=warmup, transport="ws"
        )
        timer.join()
        server_cpu, pg_cpu, redis_cpu = (
            b - a for a, b in zip(marks[0], cpu_now(server.pid), strict=True)
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    moves = len(record.post_ms)
    each = 1000 / max(1, moves)
    return (
        f"{level:>4} players: {moves} moves in {wall:.1f} s = {moves / wall:.0f}/s;"
        f" move {latency_line(record.post_ms)}; {record.conflicts} conflicts,"
        f" {record.refused} refused, errors {sum(record.errors.values())};"
        f" CPU a move: server {server_cpu * each:.2f} ms, PostgreSQL {pg_cpu * each:.2f} ms"
        f" (Redis {redis_cpu * each:.2f} ms);"
        f" cores: server {server_cpu / wall:.2f}, PostgreSQL {pg_cpu / wall:.2f},"
        f" client {client_cpu / (wall + warmup):.2f}"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        parser = argparse.ArgumentParser()
        parser.add_argument("serve")
        parser.add_argument("setup")
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--processes", type=int, default=1)
        args = parser.parse_args()
        serve(args.setup, args.port, args.processes)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    Stack.add_arguments(parser, "parlour_lean_floor")
    parser.add_argument("--levels", default="8,32,128")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument(
        "--connections", type=int, default=4, help="the server's PostgreSQL connections"
    )
    parser.add_argument(
        "--redis-checks",
        action="store_true",
        help="count each move against a request rate and publish it, in Redis, as the product does",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes on one socket, each following the others' moves through Redis",
    )
    args = parser.parse_args()
    with Stack.from_args(args.database, args) as stack:
        for level in [int(x) for x in args.levels.split(",")]:
            print(run_level(stack, level, args), flush=True)


if __name__ == "__main__":
    main()
