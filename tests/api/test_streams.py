"""Server-Sent Events: per game (id = sequence) and per tournament (id = global position)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from events.store import Position, read_all
from tests.api.conftest import Api
from tests.factories import ClubWorld, seat_of_name, tournament_game
from tests.service.play import play, step
from tournaments import play as service
from tournaments.models import Game

pytestmark = pytest.mark.django_db

#: The tournament stream reads the store's global order, which on PostgreSQL shows only
#: committed transactions (docs/store.md): its tests commit.
TRANSACTIONAL = pytest.mark.django_db(transaction=True)


def read_sse(api: Api, path: str, token: str | None = None, **headers: str) -> list[dict[str, Any]]:
    """The frames of a (bounded) stream: each ``{"id", "event", "data"}`` or a comment."""
    status, _, response = api.get(path, token=token, headers=headers)
    assert status == 200, path
    assert response["Content-Type"].startswith("text/event-stream")
    assert response["Cache-Control"] == "no-cache"
    text = b"".join(response.streaming_content).decode()
    frames = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        frame: dict[str, Any] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "":
                frame["comment"] = value
            elif name == "data":
                frame["data"] = json.loads(value)
            else:
                frame[name] = value
        frames.append(frame)
    return frames


def events_of(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in frames if "data" in f and f.get("event") != "end"]


def test_a_game_stream_sends_each_event_with_its_sequence_as_id(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(1), moves=4)
    game.refresh_from_db()
    frames = read_sse(api, f"/api/v1/games/{game.pk}/stream?timeout=0.2")
    assert frames[0] == {"retry": "1000"}
    sent = events_of(frames)
    assert [int(f["id"]) for f in sent] == list(range(1, game.sequence + 1))
    assert sent[0]["event"] == "dealt" and {f["event"] for f in sent[1:]} == {"move"}
    # Each frame is exactly what the events endpoint shows the same caller.
    assert [f["data"] for f in sent] == service.game_events(game, None)
    assert frames[-1]["comment"].startswith("time is up")


def test_a_game_stream_resumes_after_last_event_id(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(2), moves=5)
    game.refresh_from_db()
    path = f"/api/v1/games/{game.pk}/stream?timeout=0.1"
    header = read_sse(api, path, **{"Last-Event-ID": "3"})
    query = read_sse(api, path + "&last_event_id=3")
    assert [int(f["id"]) for f in events_of(header)] == list(range(4, game.sequence + 1))
    assert events_of(header) == events_of(query)
    status, problem, _ = api.get(path, headers={"Last-Event-ID": "x"})
    assert status == 400 and problem["field"] == "Last-Event-ID"


def test_a_game_stream_is_redacted_per_caller(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    # Up to 12 moves: the deal is the server's own shuffle, and a game may end sooner.
    play(game, random.Random(3), moves=12)
    game.refresh_from_db()
    for name in ("alice", "bob", None):
        token = world.tokens[name] if name else None
        seat = seat_of_name(world, game, name) if name else None
        sent = events_of(read_sse(api, f"/api/v1/games/{game.pk}/stream?timeout=0.1", token))
        assert [f["data"] for f in sent] == service.game_events(game, seat)


def test_a_game_stream_ends_with_the_game(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(4))
    frames = read_sse(api, f"/api/v1/games/{game.pk}/stream?timeout=30")
    assert frames[-1]["event"] == "end"
    assert frames[-1]["data"] == {"game_id": game.pk, "status": "over", "sequence": game.sequence}
    # After the end every event is whole: the deck is in the deal.
    assert "deck" in events_of(frames)[0]["data"]["payload"]


def test_the_stream_timeout_is_bounded(world: ClubWorld, api: Api, settings: Any) -> None:
    _, game = tournament_game(world)
    settings.PARLOUR_STREAM_SECONDS = 5
    for bad in ("0", "-1", "6", "soon"):
        status, problem, _ = api.get(f"/api/v1/games/{game.pk}/stream?timeout={bad}")
        assert status == 400 and problem["field"] == "timeout"


@TRANSACTIONAL
def test_a_tournament_stream_sends_its_games_events_by_global_position(
    world: ClubWorld, api: Api
) -> None:
    tournament, game = tournament_game(world)
    _, elsewhere = tournament_game(world, "bhabhi", ("alice", "bob", "dave"))
    play(game, random.Random(5), moves=3)
    play(elsewhere, random.Random(5), moves=3)
    game.refresh_from_db()
    path = f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.2"
    frames = events_of(read_sse(api, path))
    assert {f["data"]["game_id"] for f in frames} == {game.pk}, "only this tournament's games"
    positions = [Position.parse(f["id"]) for f in frames]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    ours = [e for e in read_all(limit=100_000) if e.stream == game.stream]
    assert [str(e.position) for e in ours] == [f["id"] for f in frames]
    assert [f["data"]["sequence"] for f in frames] == list(range(1, game.sequence + 1))
    # Resumable from any position.
    resumed = events_of(read_sse(api, path, **{"Last-Event-ID": frames[1]["id"]}))
    assert [f["id"] for f in resumed] == [f["id"] for f in frames[2:]]
    status, problem, _ = api.get(path, headers={"Last-Event-ID": "nope"})
    assert status == 400 and problem["field"] == "Last-Event-ID"


@TRANSACTIONAL
def test_a_tournament_stream_is_redacted_per_caller(world: ClubWorld, api: Api) -> None:
    tournament, game = tournament_game(world)
    rng = random.Random(6)
    for _ in range(10):
        step(game, rng)
    path = f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.2"
    for name in ("alice", "carol", "dave", "org", None):
        token = world.tokens[name] if name else None
        seat = seat_of_name(world, game, name) if name in ("alice", "carol") else None
        frames = events_of(read_sse(api, path, token))
        shown = [
            {k: v for k, v in f["data"].items() if k not in ("game_id", "position")} for f in frames
        ]
        assert shown == service.game_events(game, seat)


@TRANSACTIONAL
def test_a_tournament_stream_ends_when_the_tournament_is_over(world: ClubWorld, api: Api) -> None:
    tournament, game = tournament_game(world)
    play(game, random.Random(7))
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    frames = read_sse(api, f"/api/v1/tournaments/{tournament.pk}/stream?timeout=30")
    assert frames[-1]["event"] == "end"
    game.refresh_from_db()
    assert len(events_of(frames)) == game.sequence


@TRANSACTIONAL
def test_a_tournament_stream_sends_the_deal_of_a_game_dealt_while_it_reads(
    world: ClubWorld, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next game of a series is dealt in the same transaction as the last move of the
    one before.  If that commits after the stream looked up the tournament's games but
    before it read the events, the new deal must still be sent (it was once passed over
    unseen, and no resume brought it back)."""
    from django.contrib.auth.models import AnonymousUser

    from tournaments.api.streams import TournamentFeed

    tournament, first = tournament_game(world, deals=2)
    feed = TournamentFeed(tournament.pk, AnonymousUser(), None)
    sent = [f for f in feed.poll()[0]]
    looked_up = TournamentFeed._games
    armed = True

    def games_then_commit(self: TournamentFeed) -> dict[str, Any]:
        nonlocal armed
        found = looked_up(self)
        if armed:
            armed = False
            play(first, random.Random(9))  # its last move deals the series' second game
        return found

    monkeypatch.setattr(TournamentFeed, "_games", games_then_commit)
    for _ in range(3):
        sent += feed.poll()[0]
    second = Game.objects.get(table_id=first.table_id, number_in_series=2)
    frames = [json.loads(f.decode().split("data: ", 1)[1]) for f in sent if b"data: " in f]
    got = [(f["game_id"], f["sequence"]) for f in frames]
    first.refresh_from_db()
    second.refresh_from_db()
    expected = [(first.pk, s) for s in range(1, first.sequence + 1)]
    expected += [(second.pk, s) for s in range(1, second.sequence + 1)]
    assert sorted(got) == sorted(expected) and len(got) == len(set(got))
    assert (second.pk, 1) in got


@TRANSACTIONAL  # a stream closed at its end closes the request's connection
def test_one_client_may_hold_only_so_many_streams_open_and_gets_them_back_on_close(
    world: ClubWorld, api: Api, settings: Any
) -> None:
    """A thousand streams from one client once used up the connection pool for everyone:
    each token (and each address) has a few slots; one more is a 429 problem that says
    why, before anything waits; a closed stream gives its slot back."""
    from django.core.cache import cache

    cache.clear()
    settings.PARLOUR_OPEN_STREAMS_PER_TOKEN = 2
    settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS = 3
    _, game = tournament_game(world)
    path = f"/api/v1/games/{game.pk}/stream?timeout=0.1"
    token = world.tokens["alice"]
    opened = [api.get(path, token=token)[2] for _ in range(2)]
    assert [r.status_code for r in opened] == [200, 200]
    status, problem, response = api.get(path, token=token)
    assert status == 429 and problem["type"].endswith("/throttled")
    assert "2 streams or long-polls open already" in problem["detail"]
    assert response["Retry-After"] == "1"
    # Another token from the same address still has a slot, then the address is full.
    assert api.get(path, token=world.tokens["carol"])[0] == 200
    assert api.get(path, token=world.tokens["dave"])[0] == 429
    for response in opened:
        b"".join(response.streaming_content)  # read to the end: the stream closes
        response.close()
    assert api.get(path, token=token)[0] == 200
    # A long-poll holds a slot while it waits, and gives it back when it answers.
    settings.PARLOUR_LONG_POLL_SECONDS = 0.05
    cache.clear()
    status, _, _ = api.get(f"/api/v1/games/{game.pk}?after={game.sequence}&wait=1", token=token)
    assert status == 200
    assert [api.get(path, token=token)[0] for _ in range(3)] == [200, 200, 429]


@TRANSACTIONAL
def test_slots_a_killed_server_never_gave_back_expire_even_while_the_client_keeps_trying(
    world: ClubWorld, api: Api, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server killed with its streams open never gives their slots back.  They once
    were one counter that every attempt refreshed, so a busy client stayed locked out for
    good (and a test suite's killed live servers filled the address's slots): now each
    slot expires by itself after the longest a stream may stay open."""
    import time

    from django.core.cache import cache

    from tournaments.api import capacity

    cache.clear()
    settings.PARLOUR_OPEN_STREAMS_PER_TOKEN = 2
    settings.PARLOUR_STREAM_SECONDS = 1
    monkeypatch.setattr(capacity, "MARGIN_SECONDS", 0)
    _, game = tournament_game(world)
    path = f"/api/v1/games/{game.pk}/stream?timeout=0.1"
    token = world.tokens["alice"]
    # Opened and never closed: as the streams of a process that was killed.
    abandoned = [api.get(path, token=token)[2] for _ in range(2)]
    assert [r.status_code for r in abandoned] == [200, 200]
    assert api.get(path, token=token)[0] == 429
    answers = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        status, _, response = api.get(path, token=token)
        answers.append(status)
        if status == 200:
            response.close()
            break
        time.sleep(0.1)
    assert answers[-1] == 200, f"still refused after 5 s of trying: {answers}"
    assert len(answers) > 3  # it was refused while the slots were held, then let in
    for response in abandoned:
        response.close()


@TRANSACTIONAL
def test_anonymous_readers_of_a_finished_tournament_share_one_reading_of_its_stream(
    world: ClubWorld, api: Api, django_assert_max_num_queries: Any
) -> None:
    from tournaments.api import streams

    tournament, game = tournament_game(world, deals=2)
    play(game, random.Random(7))
    play(Game.objects.get(table=game.table, number_in_series=2), random.Random(8))
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    streams._finished_streams.clear()
    path = f"/api/v1/tournaments/{tournament.pk}/stream?timeout=30"
    first = read_sse(api, path)  # read from the store, and kept
    # The same stream again, from the start or from any event on, without reading the
    # store's events: the games, the tournament's status and the request's own queries.
    with django_assert_max_num_queries(4):
        again = read_sse(api, path)
    assert again == first and first[-1]["event"] == "end"
    shown = events_of(first)
    assert len(shown) == sum(g.sequence for g in Game.objects.filter(table=game.table))
    for n in (0, 5, len(shown) - 1):
        resumed = read_sse(api, path, **{"Last-Event-ID": shown[n]["id"]})
        assert events_of(resumed) == shown[n + 1 :] and resumed[-1]["event"] == "end"
    # What is kept is what the uncached feed sends, byte for byte.
    position = Position.parse(shown[5]["id"])
    streams._finished_streams.clear()
    feed = streams.TournamentFeed(tournament.pk, None, position)
    fresh = b""
    for _ in range(5):
        fresh += b"".join(feed._poll(feed._games())[0])
        if b"event: end" in fresh:
            break
    read, done = streams.TournamentFeed(tournament.pk, None, position).poll()
    kept, _ = streams.TournamentFeed(tournament.pk, None, position).poll()
    assert done and read == kept == [fresh]
    # A signed-in caller's stream is read for them (their seat may differ in a game).
    mine = read_sse(api, path, token=world.tokens["alice"])
    assert events_of(mine) == shown


@TRANSACTIONAL
def test_a_tournament_streams_read_examines_its_own_events_not_the_stores(
    world: ClubWorld, on_postgres: None
) -> None:
    """Issue 17: the stream filtered the store's global order (7.7 s at 92k events).  With
    20,000 events of other streams, PostgreSQL's plan for the read touches about as many
    rows as the tournament has events, through the (stream, tx, id) index."""
    from django.db import connection

    from tournaments.api.streams import TournamentFeed

    tournament, game = tournament_game(world)
    play(game, random.Random(5), moves=4)
    game.refresh_from_db()
    move = {"type": "move", "v": 1, "seat": 0, "action": {"type": "pass"}, "chance": False}
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO events_event (stream, sequence, type, version, payload, cause_kind,"
            " cause_id, recorded_at, idempotency_key, command_hash, batch_size)"
            " SELECT 'other-' || (n / 100), (n %% 100) + 1, 'move', 1, %s::jsonb, 'seat', '0',"
            " now(), NULL, '', 1 FROM generate_series(0, 19999) AS n",
            [json.dumps(move)],
        )
        cursor.execute("ANALYZE events_event")
    reads: list[tuple[str, Any]] = []

    def keep(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if "FROM events_event" in sql and "ORDER BY tx, id" in sql:
            reads.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        frames, _ = TournamentFeed(tournament.pk, None, None).poll()
    assert len(frames) == game.sequence  # every event of its game, no more
    assert reads, "the feed read the store"
    examined = 0
    with connection.cursor() as cursor:
        for sql, params in reads:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
            nodes = [plan[0]["Plan"]]
            while nodes:
                node = nodes.pop()
                nodes.extend(node.get("Plans", []))
                if node.get("Relation Name") == "events_event":
                    loops = node.get("Actual Loops", 1)
                    examined += (
                        node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
                    ) * loops
                    assert "Seq Scan" not in node["Node Type"], node["Node Type"]
    assert examined <= 3 * game.sequence + 10, f"{examined} rows for {game.sequence} events"
