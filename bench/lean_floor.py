"""The floor of a durable move on this stack's own parts (issue 24): a prototype, not the product.

    .venv/bin/python bench/lean_floor.py [--levels 8,32,128] [--seconds 15] [--warmup 3]

docs/benchmarks.md ("What the goal would take") names what a move would have to become to
spend no more server CPU than boardgame.io on FlatFile.  This is that move built as small as
it can be, on the real schema, and played by bench/load.py's own players
(:func:`bench.faults.players.run_players` over the push channel's frames: ``follow``,
``act``, ``acted``, ``view``), so that its figures stand beside bench/load.py's:

* one process: uvicorn serving a bare ASGI WebSocket app (no Django, no Channels, no
  thread), as boardgame.io is one Node.js process;
* each game's state held in that process, folded once at the start; a move decided and
  evolved by the engine, as the game service does (:mod:`tournaments.play.commands`);
* the move's writes as one statement on an async psycopg connection in the event loop,
  committed before the move is answered: the store's conditional ``INSERT`` of the event
  (the store's own columns), the projection's ``UPDATE`` and the account notice's
  ``INSERT`` (bench/round_trips.py's statement); a deal's end writes the next game's row
  and its deal in one more;
* the mover's answer and the other seat's view built from that same state and sent from
  the same process.

What it leaves out, each of which the product's move pays for: the sign-in's re-check
(a token is looked up once, at the handshake), the request rates, the idempotency key's
look-up (a key is stored, a retry is not answered), the views' names and context, the
series' totals and the next deal's seed commitment (the deck is shuffled by a
system random generator), clocks, bots' queueing, and the Redis publish that reaches a follower in
another process.  So its CPU a move is a floor for that design, not a product's figure.

It makes its own database (``--database``, dropped at the end) and tables of two people
(:func:`bench.faults.players.person_tables`), then for each level starts the server,
plays, and prints moves a second, the move's latency and the CPU a move of the server
process, of PostgreSQL (every backend of the machine's server, as bench/load.py counts
it) and of Redis, from the end of the players' warm-up.  ``--redis-checks`` adds the two
Redis commands a product's move cannot drop, with the product's own scripts: the request
rates' count before the move, the publish after it.  ``--connections`` (4): the server's
PostgreSQL connections, each taking one statement at a time.  docs/benchmarks.md ("The
floor of that design, measured") records its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
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

TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def named_cpu(*names: str) -> float:
    """CPU seconds the machine's processes called ``names`` have used: every PostgreSQL
    backend (as bench/load.py counts them), or the Redis server."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() in names:
                total += process_cpu(int(entry.name))
        except OSError:
            continue
    return total


def cpu_now(server: int) -> tuple[float, float, float]:
    """The CPU seconds of the server process, PostgreSQL and Redis, now."""
    return process_cpu(server), named_cpu("postgres", "postmaster"), named_cpu("redis-server")


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


class Server:
    """The games, the statements and the connection of the server process."""

    def __init__(self, setup: dict[str, Any]) -> None:
        from events.store import _COLUMNS, _PG_ROW

        self.setup = setup
        self.columns = _COLUMNS
        self.row = _PG_ROW
        self.tokens: dict[str, int] = {t: int(u) for t, u in setup["tokens"].items()}
        self.games: dict[int, Live] = {}
        self.connection: Any = None
        self.rng = random.SystemRandom()
        #: The connections a move's statement is sent on: each takes one at a time.
        self.idle: asyncio.Queue[Any] = asyncio.Queue()

    async def start(self) -> None:
        import psycopg

        from engine.registry import get_game

        for _ in range(self.setup["connections"]):
            self.idle.put_nowait(
                await psycopg.AsyncConnection.connect(
                    self.setup["database_url"], autocommit=True, prepare_threshold=0
                )
            )
        self.connection = await self.idle.get()  # for the start's reads
        if self.setup["redis_checks"]:
            import redis.asyncio

            from tournaments.api.throttling import _COUNT
            from tournaments.workers.notify import _PUBLISH

            client = redis.asyncio.from_url(self.setup["redis_url"])
            self.count = client.register_script(_COUNT.text)
            self.publish = client.register_script(_PUBLISH.text)
        for game_id, users in self.setup["games"].items():
            async with self.connection.cursor() as cursor:
                await cursor.execute("SELECT kind FROM tournaments_game WHERE id = %s", [game_id])
                (kind,) = await cursor.fetchone()
                await cursor.execute(
                    "SELECT payload FROM events_event WHERE stream = %s ORDER BY sequence",
                    [f"game-{game_id}"],
                )
                payloads = [row[0] for row in await cursor.fetchall()]
            engine = get_game(kind)
            live = Live(int(game_id), engine, engine.fold(payloads), len(payloads), users)
            self.games[live.id] = live
        async with self.connection.cursor() as cursor:
            await cursor.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'tournaments_game' AND column_name <> 'id'"
            )
            self.game_columns = [row[0] for row in await cursor.fetchall()]
        self.idle.put_nowait(self.connection)

    async def execute(self, statement: str, params: list[Any]) -> Any:
        """``statement``, prepared, on an idle connection: its one row."""
        connection = await self.idle.get()
        try:
            async with connection.cursor() as cursor:
                await cursor.execute(statement, params, prepare=True)
                return await cursor.fetchone()
        finally:
            self.idle.put_nowait(connection)

    def insert_sql(self, count: int) -> str:
        return (
            f"INSERT INTO events_event ({self.columns}) SELECT * FROM (VALUES "
            + ", ".join([self.row] * count)
            + ") AS incoming"
            " WHERE (SELECT COALESCE(MAX(sequence), 0) FROM events_event WHERE stream = %s) = %s"
            " RETURNING sequence, id"
        )

    def event_params(
        self, stream: str, first: int, payloads: list[dict[str, Any]], key: str | None
    ) -> list[Any]:
        now = datetime.now(UTC)
        params: list[Any] = []
        for offset, payload in enumerate(payloads):
            params += [
                stream,
                first + offset,
                payload["type"],
                payload.get("v", 1),
                json.dumps(payload, separators=(",", ":")),
                "player" if offset == 0 and key else "system",
                "",
                now,
                key if offset == 0 else None,
                "0" * 64 if offset == 0 and key else "",
                len(payloads),
            ]
        return params

    async def move(self, live: Live, seat: int, action: dict[str, Any], key: str) -> None:
        """Decide, write in one statement, and hold the new state (raises on a refusal)."""
        engine, state = live.engine, live.state
        request, chance = engine.request(state, seat, action, self.rng)
        payloads = []
        for event in engine.decide(state, seat, request, chance=chance):
            state = engine.evolve(state, event)
            payloads.append(event)
        while not engine.is_over(state):
            node = engine.chance_draw(state, self.rng)
            if node is None:
                break
            for event in engine.decide(state, node[0], node[1], chance=True):
                state = engine.evolve(state, event)
                payloads.append(event)
        over = engine.is_over(state)
        sequence = live.sequence + len(payloads)
        waiting = json.dumps(engine.waiting_for(state))
        outcome = json.dumps(engine.outcome(state)) if over else "null"
        now = datetime.now(UTC)
        waiter = live.users[engine.waiting_for(state)[0]] if not over else live.users[seat]
        statement = (
            "WITH appended AS ("
            + self.insert_sql(len(payloads))
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
            *self.event_params(live.stream, live.sequence + 1, payloads, key),
            live.stream,
            live.sequence,
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
        (count,) = await self.execute(statement, params)
        if count != len(payloads):
            raise RuntimeError(f"{live.stream} moved past {live.sequence}: a conflict")
        live.state, live.sequence = state, sequence
        if over:
            await self.deal_next(live)

    async def deal_next(self, live: Live) -> None:
        """The next deal at the table: its game row and its deal, in one statement."""
        engine = live.engine
        deck = list(engine.deck)
        self.rng.shuffle(deck)
        seats = engine.seat_count(live.state)
        payloads = engine.deal(seats, self.rng.randrange(seats), deck)
        state = engine.fold(payloads)
        while not engine.is_over(state):
            node = engine.chance_draw(state, self.rng)
            if node is None:
                break
            for event in engine.decide(state, node[0], node[1], chance=True):
                state = engine.evolve(state, event)
                payloads.append(event)
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
        (stream,) = await self.execute(statement, params)
        new = Live(int(stream.split("-")[1]), engine, state, len(payloads), live.users)
        self.games[new.id] = new
        live.next_id = new.id

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
                if kind == "follow":
                    live.followers[user] = frame
                    followed.add(live.id)
                    if live.sequence > body.get("after", -1):
                        view = live.view(seat)
                        await frame(
                            {
                                "type": "view",
                                "game": live.id,
                                "sequence": live.sequence,
                                "view": view,
                            }
                        )
                elif kind == "unfollow":
                    live.followers.pop(user, None)
                    followed.discard(live.id)
                elif kind == "act":
                    key = body.get("key")
                    if body.get("expected_sequence") != live.sequence:
                        problem = {"status": 409, "current_sequence": live.sequence}
                        await frame(
                            {"type": "problem", "game": live.id, "key": key, "problem": problem}
                        )
                        continue
                    if self.setup["redis_checks"]:  # the request rates' count, as the product's
                        await self.count(keys=[f"rate:user:{user}", "rate:address"], args=[60, 60])
                    try:
                        await self.move(live, seat, body["action"], key)
                    except Exception as error:  # noqa: BLE001 - a refusal, as a problem
                        problem = {"status": 422, "detail": str(error)}
                        await frame(
                            {"type": "problem", "game": live.id, "key": key, "problem": problem}
                        )
                        continue
                    if self.setup["redis_checks"]:  # the publish to other processes' followers
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
                    for other, send_other in list(live.followers.items()):
                        if other != user:
                            there = live.users.index(other)
                            await send_other(
                                {
                                    "type": "view",
                                    "game": live.id,
                                    "sequence": live.sequence,
                                    "view": live.view(there),
                                }
                            )
        finally:
            for game_id in followed:
                game = self.games.get(game_id)
                if game is not None:
                    game.followers.pop(user, None)


def serve(setup_path: str, port: int) -> None:
    """The server process: uvicorn on ``port`` with the bare app."""
    import django
    import uvicorn

    django.setup()  # for the store's columns and the engine's words, read once: not on the path
    setup = json.loads(Path(setup_path).read_text())
    server = Server(setup)

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

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


# -- the run ------------------------------------------------------------------------------------


def setup_tables(
    stack: Stack, level: int, folder: Path, connections: int, redis_checks: bool
) -> tuple[Path, list[Any]]:
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
        "connections": connections,
        "redis_url": stack.cache_url,
        "redis_checks": redis_checks,
        "tokens": {s.token: s.user_id for s in seats},
        "games": games,
    }
    path = folder / f"lean-{level}.json"
    path.write_text(json.dumps(setup))
    return path, seats


def run_level(
    stack: Stack, level: int, seconds: float, warmup: float, pool: int, redis_checks: bool
) -> str:
    from django.db import connections

    path, seats = setup_tables(stack, level, stack.folder, pool, redis_checks)
    connections.close_all()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "serve", str(path), "--port", str(port)],
        env=stack.env,
        start_new_session=True,
    )
    try:
        for _ in range(200):
            try:
                import socket

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
        args = parser.parse_args()
        serve(args.setup, args.port)
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
    args = parser.parse_args()
    with Stack.from_args(args.database, args) as stack:
        for level in [int(x) for x in args.levels.split(",")]:
            print(
                run_level(
                    stack, level, args.seconds, args.warmup, args.connections, args.redis_checks
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
