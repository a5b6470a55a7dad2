"""People's tables and bot tournaments for the load and fault runs, and the players.

Players are asyncio tasks on one ``aiohttp`` session: each plays its seat of a
tournament table through the API as any client would (GET the game, POST an
action with the sequence it saw and a fresh ``Idempotency-Key``, retrying the
same key after an error), and records what the API acknowledged.  The stack
they play against is :mod:`bench.faults.stack`.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from bench.faults.stack import percentile  # noqa: E402

# -- setting up tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatAt:
    """A person's seat at a tournament table, played through the API with ``token``."""

    name: str
    token: str
    user_id: int
    table: int
    game: int


def person_tables(
    tag: str,
    tables: int,
    *,
    game: str = "old_maid",
    people_per_table: int = 1,
    bots_per_table: int = 1,
    deals: int = 1000,
    turn_seconds: int | None = None,
) -> tuple[int, list[SeatAt]]:
    """A begun one-round tournament of ``tables`` tables of people and bots.

    Each table has ``people_per_table`` people, who play through the API (their
    tokens are returned), and ``bots_per_table`` heuristic bots, played by the
    Celery workers.  The series at each table has ``deals`` deals (the game's
    default kind: ``losses``, ``first_to`` or ``place_points``).  Returns the
    tournament id and the people's seats.
    """
    from django.contrib.auth.models import User

    from engine.registry import get_game
    from tournaments import services
    from tournaments.api.authentication import create_token
    from tournaments.models import Game, TableSeat

    engine = get_game(game)
    size = people_per_table + bots_per_table
    count = tables * people_per_table
    User.objects.bulk_create([User(username=f"{tag}-p{i}", password="!") for i in range(count)])
    users = list(User.objects.filter(username__startswith=f"{tag}-p").order_by("id"))
    club = services.create_club(f"Club {tag}", slug=f"club-{tag}")
    tournament = services.create_tournament(
        club,
        f"{game} {tag}",
        game,
        1,
        series={"kind": engine.default_series.kind, "target": deals},
        table_min=size,
        table_max=size,
        turn_seconds=turn_seconds,
    )
    fixed: dict[Any, int] = {}
    people = []
    for i, user in enumerate(users):
        number = i // people_per_table + 1
        person = services.add_player(club, f"P{i}", user=user)
        people.append(person)
        services.register(tournament, person)
        services.check_in(tournament, person)
        fixed[person.pk] = number
        if i % people_per_table == 0:
            for b in range(bots_per_table):
                bot = services.add_player(club, f"Bot {number}.{b}", bot_level="heuristic")
                services.register(tournament, bot)
                fixed[bot.pk] = number
    round_ = services.start_round(tournament, fixed=fixed)
    tokens = {user.pk: create_token(user, "bench")[1] for user in users}
    services.begin_round(round_)
    seats: list[SeatAt] = []
    for person, user in zip(people, users, strict=True):
        table_seat = TableSeat.objects.get(table__round=round_, player=person)
        first = Game.objects.filter(table_id=table_seat.table_id).order_by("id").first()
        assert first is not None
        seats.append(SeatAt(person.name, tokens[user.pk], user.pk, table_seat.table_id, first.pk))
    return tournament.pk, seats


def bot_tournament(tag: str, players: int, game: str, rounds: int, size: int, deals: int) -> int:
    """A begun tournament of bots only, ``rounds`` rounds at tables of ``size``; its id.

    The workers play it on their own: bot moves, and each next round
    (``advance_tournament``) when the last finishes.
    """
    from engine.registry import get_game
    from tournaments import services

    engine = get_game(game)
    club = services.create_club(f"Bots {tag}", slug=f"bots-{tag}")
    tournament = services.create_tournament(
        club,
        f"{game} bots {tag}",
        game,
        rounds,
        series={"kind": engine.default_series.kind, "target": deals},
        table_min=size,
        table_max=size,
    )
    for i in range(players):
        level = "heuristic" if i % 2 else "random"
        services.register(tournament, services.add_player(club, f"B{i}", bot_level=level))
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    return tournament.pk


# -- players -------------------------------------------------------------------------------------


@dataclass
class Record:
    """What the players saw: latencies, acknowledged actions, refusals and errors."""

    post_ms: list[float] = field(default_factory=list)
    get_ms: list[float] = field(default_factory=list)
    #: ``(game id, user id, Idempotency-Key, sequence answered)`` of every 200 to an action.
    acknowledged: list[tuple[int, int, str, int]] = field(default_factory=list)
    conflicts: int = 0
    refused: int = 0
    replayed: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    finished_tables: int = 0
    measuring: bool = True
    #: Long-poll GETs answered (not in ``get_ms``: they wait for the next move on purpose).
    waits: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def choose_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal action (never the representative Old Maid ``arrange``)."""
    actions = [a for a in view.get("legal_actions") or [] if a.get("type") != "arrange"]
    return rng.choice(actions) if actions else None


@dataclass(frozen=True)
class Answer:
    """An HTTP answer, read whole."""

    status_code: int
    body: bytes
    #: The ``Retry-After`` header, if any (a 503 must have one).
    retry_after: str | None = None

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """The players' HTTP client: an ``aiohttp`` session with the two calls they make.

    aiohttp, not httpx: on our 2-core machines httpx's ``AsyncClient`` cost
    about 5 ms of CPU a request against aiohttp's 0.3 ms (docs/benchmarks.md),
    and the client shares the cores with the server it measures.
    """

    def __init__(self, session: Any) -> None:
        self.session = session

    async def get(self, path: str, *, headers: dict[str, str]) -> Answer:
        async with self.session.get(path, headers=headers) as response:
            return Answer(
                response.status, await response.read(), response.headers.get("Retry-After")
            )

    async def post(self, path: str, *, json: Any, headers: dict[str, str]) -> Answer:
        async with self.session.post(path, json=json, headers=headers) as response:
            return Answer(
                response.status, await response.read(), response.headers.get("Retry-After")
            )


async def _get(
    client: Any, path: str, token: str, record: Record, *, timed: bool = True
) -> tuple[int, dict[str, Any] | None]:
    """GET ``path``; its latency is recorded unless ``timed`` is off (a long-poll waits
    on purpose: it is counted in ``record.waits`` instead)."""
    started = time.perf_counter()
    try:
        response = await client.get(path, headers={"Authorization": f"Bearer {token}"})
    except Exception as error:  # noqa: BLE001 - a fault run expects connection errors
        record.error(type(error).__name__)
        return 0, None
    if record.measuring:
        if timed:
            record.get_ms.append((time.perf_counter() - started) * 1000)
        else:
            record.waits += 1
    if response.status_code >= 500 or response.status_code == 429:
        record.error(f"GET {response.status_code}")
        if response.status_code == 503 and not response.retry_after:
            record.error("503 without Retry-After")
        return response.status_code, None
    try:
        body = response.json()
    except ValueError:
        record.error("GET not JSON")
        return response.status_code, None
    return response.status_code, body


async def act(
    client: Any,
    me: SeatAt,
    game: int,
    action: dict[str, Any],
    sequence: int,
    record: Record,
    give_up_at: float,
) -> dict[str, Any] | None:
    """POST one action; retry the same key after a server error or a lost connection.

    Returns the new view when the API acknowledged the action (200), ``None``
    when it refused it (409, 422) or never answered before ``give_up_at``.
    """
    key = uuid.uuid4().hex
    body = {"action": action, "expected_sequence": sequence}
    headers = {"Authorization": f"Bearer {me.token}", "Idempotency-Key": key}
    while True:
        started = time.perf_counter()
        try:
            response = await client.post(
                f"/api/v1/games/{game}/actions", json=body, headers=headers
            )
        except Exception as error:  # noqa: BLE001
            record.error(type(error).__name__)
            response = None
        if response is not None and response.status_code < 500:
            if record.measuring:
                record.post_ms.append((time.perf_counter() - started) * 1000)
            if response.status_code == 200:
                answer = response.json()
                record.acknowledged.append((game, me.user_id, key, int(answer["sequence"])))
                if answer.get("replayed"):
                    record.replayed += 1
                view: dict[str, Any] = answer["view"]
                return view
            if response.status_code == 409:
                record.conflicts += 1
            else:
                record.refused += 1
                record.error(f"POST {response.status_code}")
            return None
        if response is not None:
            record.error(f"POST {response.status_code}")
            if response.status_code == 503 and not response.retry_after:
                record.error("503 without Retry-After")
        if time.monotonic() > give_up_at:
            return None
        await asyncio.sleep(0.2)


async def play_seat(
    client: Any,
    me: SeatAt,
    until: float,
    record: Record,
    *,
    poll: float = 0.02,
    long_poll: float = 0.0,
    rng: random.Random | None = None,
    grace: float = 30.0,
) -> None:
    """Play ``me``'s seat (and the table's next games) until ``until`` or the series ends.

    While another seat is to act, with ``long_poll`` seconds the client asks
    ``GET /api/v1/games/{id}?after=<sequence>&wait=<long_poll>``, which answers
    when the game moves on; without it, the game is polled after ``poll``
    seconds, then after twice as long each time, up to ``8 * poll``; acting
    resets the delay.
    """
    rng = rng or random.Random()
    game = me.game
    view: dict[str, Any] | None = None
    wait = poll
    while time.monotonic() < until:
        if view is None:
            status, view = await _get(client, f"/api/v1/games/{game}", me.token, record)
            if view is None:
                await asyncio.sleep(poll if status else 0.2)
                continue
        if view.get("status") == "over" and view.get("next_game_id"):
            game, view = view["next_game_id"], None  # the series' next deal
            continue
        if view.get("status") == "over":
            # No next game named: the series is over, or this server predates next_game_id.
            _, table = await _get(client, f"/api/v1/tables/{me.table}", me.token, record)
            if table is None:
                await asyncio.sleep(0.2)
                continue
            newest = max(table["games"], key=lambda g: g["game_number"] or 0)
            if newest["id"] == game:
                if table["status"] == "finished":
                    record.finished_tables += 1
                    return
                await asyncio.sleep(poll)
            game = newest["id"]
            view = None
            continue
        action = choose_action(view, rng) if view.get("seat") in view["waiting_for"] else None
        if action is None and long_poll > 0:
            # Not our turn: the server answers when the game has moved on.
            left = max(0.0, min(long_poll, until - time.monotonic()))
            path = f"/api/v1/games/{game}?after={view['sequence']}&wait={left:.1f}"
            status, view = await _get(client, path, me.token, record, timed=False)
            if view is None:
                await asyncio.sleep(poll if status else 0.2)
            continue
        if action is None:
            # Not our turn: look again soon, then less and less often (up to 8 x poll).
            await asyncio.sleep(wait)
            wait = min(wait * 2, poll * 8)
            view = None
            continue
        wait = poll
        view = await act(client, me, game, action, view["sequence"], record, until + grace)


async def play_seat_ws(
    session: Any,
    me: SeatAt,
    until: float,
    record: Record,
    *,
    rng: random.Random | None = None,
    grace: float = 30.0,
) -> None:
    """Play ``me``'s seat as :func:`play_seat` does, over the push channel (``/api/v1/ws``):
    one WebSocket that follows the seat's game and is pushed every new view, the moves sent
    over it.  A move's latency is from sending it to its ``acted`` answer (``post_ms``); a
    pushed view counts as a long-poll answered (``waits``).  A lost connection is opened
    again and the game followed from the last sequence seen (nothing is missed), as is a
    follow the server answered with a 5xx problem; a move unanswered by then is sent again
    with its key.
    """
    import aiohttp

    rng = rng or random.Random()
    game = me.game
    view: dict[str, Any] | None = None
    #: The move on its way: (key, body, when it was sent).
    pending: tuple[str, dict[str, Any], float] | None = None
    headers = {"Authorization": f"Bearer {me.token}"}
    while time.monotonic() < until + (grace if pending else 0.0):
        try:
            async with session.ws_connect("/api/v1/ws", headers=headers, heartbeat=20) as ws:
                after = view["sequence"] if view is not None else -1
                await ws.send_json({"type": "follow", "game": game, "after": after})
                if pending is not None:  # a retry of the same key: the first outcome
                    await ws.send_json(pending[1])
                while True:
                    try:
                        message = await ws.receive(timeout=1.0)
                    except TimeoutError:  # nothing pushed: is the time up?
                        if time.monotonic() >= until and pending is None:
                            return
                        if time.monotonic() >= until + grace:
                            return
                        continue
                    if message.type != aiohttp.WSMsgType.TEXT:
                        break
                    frame = json.loads(message.data)
                    kind = frame.get("type")
                    if kind == "view" and frame.get("game") == game:
                        if record.measuring:
                            record.waits += 1
                        if view is None or frame["sequence"] >= view["sequence"]:
                            view = frame["view"]
                    elif kind == "acted" and pending is not None and frame["key"] == pending[0]:
                        if record.measuring:
                            record.post_ms.append((time.perf_counter() - pending[2]) * 1000)
                        record.acknowledged.append(
                            (game, me.user_id, pending[0], frame["sequence"])
                        )
                        if frame.get("replayed"):
                            record.replayed += 1
                        pending = None
                        if view is None or frame["sequence"] >= view["sequence"]:
                            view = frame["view"]
                    elif kind == "problem":
                        status = frame["problem"].get("status") or 0
                        mine = pending is not None and frame.get("key") == pending[0]
                        if status >= 500:
                            # As over HTTP: the same move again with its key, a moment later.
                            record.error(f"ws {status}")
                            if mine and pending is not None:
                                await asyncio.sleep(0.2)
                                await ws.send_json(pending[1])
                            elif frame.get("game") == game:
                                # The follow's own failure (the database away): the server
                                # goes on with it, but a client cannot tell that from a
                                # follow that ended, so it follows again from the last view
                                # it has (a follow of a game followed replaces it).
                                await asyncio.sleep(1.0)
                                after = view["sequence"] if view is not None else -1
                                follow = {"type": "follow", "game": game, "after": after}
                                await ws.send_json(follow)
                            continue
                        if mine:
                            pending = None
                        if status == 409:
                            record.conflicts += 1
                        else:
                            record.refused += 1
                            record.error(f"ws {status}")
                    if time.monotonic() >= until and pending is None:
                        return
                    if view is None or pending is not None:
                        continue
                    if view.get("status") == "over":
                        following = view.get("next_game_id")
                        if not following:
                            record.finished_tables += 1
                            return
                        await ws.send_json({"type": "unfollow", "game": game})
                        game, view = following, None
                        await ws.send_json({"type": "follow", "game": game})
                        continue
                    action = (
                        choose_action(view, rng)
                        if view.get("seat") in view["waiting_for"]
                        else None
                    )
                    if action is not None:
                        key = uuid.uuid4().hex
                        body = {
                            "type": "act",
                            "game": game,
                            "key": key,
                            "expected_sequence": view["sequence"],
                            "action": action,
                        }
                        pending = (key, body, time.perf_counter())
                        await ws.send_json(body)
        except Exception as error:  # noqa: BLE001 - a fault run expects connection errors
            record.error(type(error).__name__)
        await asyncio.sleep(0.2)


def run_players(
    url: str,
    seats: Iterable[SeatAt],
    seconds: float,
    *,
    poll: float = 0.02,
    long_poll: float = 0.0,
    warmup: float = 0.0,
    seed: int = 1,
    transport: str = "http",
) -> tuple[Record, float, float]:
    """Play every seat at once for ``seconds`` (after ``warmup``, not measured), over
    ``transport``: ``http`` (the REST API) or ``ws`` (the push channel).

    Returns the record, the measured wall time and this client's CPU seconds.
    """
    import aiohttp

    seats = list(seats)
    record = Record(measuring=warmup <= 0)

    async def main() -> float:
        connector = aiohttp.TCPConnector(limit=len(seats) + 8)
        timeout = aiohttp.ClientTimeout(sock_connect=10.0, sock_read=30.0)
        async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as session:
            client = Client(session)
            begin = time.monotonic()
            until = begin + warmup + seconds
            rng = random.Random(seed)
            tasks = [
                asyncio.create_task(
                    play_seat_ws(session, s, until, record, rng=random.Random(rng.random()))
                    if transport == "ws"
                    else play_seat(
                        client,
                        s,
                        until,
                        record,
                        poll=poll,
                        long_poll=long_poll,
                        rng=random.Random(rng.random()),
                    )
                )
                for s in seats
            ]
            if warmup > 0:
                await asyncio.sleep(warmup)
                record.post_ms.clear()
                record.get_ms.clear()
                record.acknowledged.clear()
                record.conflicts = record.refused = record.replayed = record.waits = 0
                record.measuring = True
            measured_from = time.monotonic()
            await asyncio.gather(*tasks)
            return time.monotonic() - measured_from

    cpu = time.process_time()
    wall = asyncio.run(main())
    return record, wall, time.process_time() - cpu


def latency_line(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"median {statistics.median(values):.1f} ms, p99 {percentile(values, 0.99):.1f} ms,"
        f" max {max(values):.1f} ms"
    )
