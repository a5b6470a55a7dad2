"""What a bot needs to play all its games from streams alone (issue 22): the account stream
(``GET /api/v1/stream/events``), the game stream's ``?view=true``, and the views' clocks."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from datetime import datetime
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from events.store import START, Position
from tests.api.conftest import Api, timeless
from tests.api.test_long_poll import ACT_AFTER, a_move_in_a_moment
from tests.api.test_streams import events_of, read_sse
from tests.factories import (
    ClubWorld,
    begin_round,
    seat_of_name,
    series_of,
    tournament,
    tournament_game,
)
from tests.service.play import play, step
from tournaments import sql
from tournaments.models import AccountNotice, Game
from tournaments.play import feed

#: A login's feed is read in the order its transactions settle, which on PostgreSQL shows
#: only committed ones once every older transaction has finished (docs/store.md): the
#: tests commit, as the tournament stream's do.
pytestmark = pytest.mark.django_db(transaction=True)

STREAM = "/api/v1/stream/events"


def account(api: Api, token: str | None, query: str = "timeout=0.2", **headers: str) -> Any:
    """The data frames of a (bounded) account stream."""
    return [f for f in read_sse(api, f"{STREAM}?{query}", token, **headers) if "data" in f]


def view_now(api: Api, world: ClubWorld, name: str, game: Game) -> dict[str, Any]:
    status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])
    assert status == 200
    return dict(view)


def waits_for(world: ClubWorld, game: Game, name: str) -> bool:
    game.refresh_from_db()
    return not game.is_over and seat_of_name(world, game, name) in game.waiting_for


# -- the account stream ------------------------------------------------------------------------


def test_a_new_follower_gets_each_running_game_of_theirs_with_their_seats_view(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, other = tournament_game(world, "bhabhi", ("alice", "bob", "dave"))
    frames = account(api, world.tokens["alice"])
    started = [f for f in frames if f["event"] == "started"]
    assert sorted(f["data"]["game_id"] for f in started) == [game.pk, other.pk]
    for frame in frames:
        shown = next(g for g in (game, other) if g.pk == frame["data"]["game_id"])
        # The seat's view, exactly what GET /games/{id} answers the same caller.
        assert timeless(frame["data"]["view"]) == timeless(view_now(api, world, "alice", shown))
        assert frame["data"]["view"]["role"] == "seat"
    turns = sorted(f["data"]["game_id"] for f in frames if f["event"] == "turn")
    assert turns == [g.pk for g in (game, other) if waits_for(world, g, "alice")]
    # Everyone hears of their own games only.
    assert {f["data"]["game_id"] for f in account(api, world.tokens["carol"])} == {game.pk}
    assert account(api, world.tokens["eve"]) == []


def test_the_account_stream_tells_each_turn_as_it_comes_then_the_finish(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    token = world.tokens["alice"]
    last = account(api, token)[-1]["id"]
    rng = random.Random(7)
    turns = 0
    while not game.is_over:
        step(game, rng)
        game.refresh_from_db()
        frames = account(api, token, **{"Last-Event-ID": last})
        if frames:
            last = frames[-1]["id"]
        # (A notice not yet settled when the first frames were sent comes again after them.)
        frames = [f for f in frames if f["event"] != "started"]
        if game.is_over:
            assert [f["event"] for f in frames] == ["finished"]
            assert frames[0]["data"]["view"]["status"] == "over"
        elif waits_for(world, game, "alice"):
            assert [f["event"] for f in frames] == ["turn"], frames
            view = frames[0]["data"]["view"]
            assert view["sequence"] == game.sequence and view["legal_actions"]
            assert timeless(view) == timeless(view_now(api, world, "alice", game))
            turns += 1
        else:
            assert frames == [], "nothing is due to a seat not waited for"
    assert turns > 0


def test_a_turn_the_game_moved_past_is_not_sent(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(8), moves=12)
    assert AccountNotice.objects.filter(game=game, kind="turn").count() > 1
    frames = account(api, world.tokens["bob"], **{"Last-Event-ID": "0.0"})
    assert frames[0]["event"] == "started"
    turns = [f for f in frames if f["event"] == "turn"]
    if waits_for(world, game, "bob"):
        assert len(turns) == 1 and turns[0]["data"]["view"]["sequence"] == game.sequence
    else:
        assert turns == []


def test_a_series_next_game_is_told_right_after_the_last_ones_finish(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world, deals=2)
    token = world.tokens["carol"]
    last = account(api, token)[-1]["id"]
    play(game, random.Random(9))
    frames = account(api, token, **{"Last-Event-ID": last})
    told = [(f["event"], f["data"]["game_id"]) for f in frames if f["event"] != "turn"]
    following = Game.objects.get(table=game.table, number_in_series=2)
    # (A notice not yet settled when the first frames were sent comes again after them.)
    while told and told[0] == ("started", game.pk):
        told.pop(0)
    assert told == [("finished", game.pk), ("started", following.pk)]
    assert frames[-1]["data"]["game_id"] == following.pk
    positions = [Position.parse(f["id"]) for f in frames]
    assert positions == sorted(positions, key=lambda p: (p.tx, p.id))
    assert (Position.parse(last).tx, Position.parse(last).id) < (positions[0].tx, positions[0].id)


def test_the_account_stream_needs_a_login_and_a_numeric_last_event_id(
    world: ClubWorld, api: Api
) -> None:
    status, problem, _ = api.get(f"{STREAM}?timeout=0.1")
    assert status == 401 and problem["type"].endswith("/unauthenticated")
    for bad in ("x", "-1", "1", "1.", "².1", f"{2**63}.1"):
        status, problem, _ = api.get(
            f"{STREAM}?timeout=0.1", token=world.tokens["alice"], headers={"Last-Event-ID": bad}
        )
        assert status == 400 and problem["field"] == "Last-Event-ID", bad
    status, problem, _ = api.get(
        f"{STREAM}?timeout=0.1",
        token=world.tokens["alice"],
        headers={"Last-Event-ID": "abc", "Accept-Language": "ru"},
    )
    assert '"abc"' in problem["detail"] and "position" not in problem["detail"], problem
    status, problem, _ = api.get(f"{STREAM}?timeout=0", token=world.tokens["alice"])
    assert status == 400 and problem["field"] == "timeout"
    assert AccountNotice.objects.count() == 0


def test_an_account_stream_takes_one_of_the_callers_stream_slots(
    world: ClubWorld, api: Api, settings: Any
) -> None:
    settings.PARLOUR_OPEN_STREAMS_PER_TOKEN = 0
    status, problem, _ = api.get(f"{STREAM}?timeout=0.1", token=world.tokens["alice"])
    assert status == 429 and "streams or long-polls open" in problem["detail"]


def test_reading_a_feed_is_one_range_of_the_logins_index(world: ClubWorld) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(10), moves=6)
    user = world.users["alice"].pk
    with CaptureQueriesContext(connection) as queries:
        feed.notices_after(user, START)
    assert len(queries) == 1
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The tables are tiny here: ask whether the index can serve it at all.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + sql.account_notices_statement(), [user, 0, 0, 500])
        else:
            cursor.execute(
                "EXPLAIN QUERY PLAN " + sql.account_notices_statement(), [user, 0, 0, 500]
            )
        plan = "\n".join(" ".join(str(c) for c in row) for row in cursor.fetchall())
    assert "notice_user_position" in plan, plan


@pytest.mark.postgres
def test_a_notice_committed_late_is_never_passed(world: ClubWorld, on_postgres: None) -> None:
    login = world.users["alice"]
    _, game = tournament_game(world)
    # Every notice has its transaction's id (the deal's were written by bulk_create).
    assert not AccountNotice.objects.filter(tx=0).exists()
    after = feed.last_position(login.pk)
    written, release = threading.Event(), threading.Event()

    def slow() -> None:
        try:
            with transaction.atomic():
                AccountNotice.objects.create(
                    user=login, game=game, seat=0, sequence=98, kind="turn"
                )
                written.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=slow)
    thread.start()
    assert written.wait(10)
    # Written after, committed first: a plain id order would pass the slow one for good.
    AccountNotice.objects.create(user=login, game=game, seat=0, sequence=99, kind="turn")
    assert feed.notices_after(login.pk, after) == []
    release.set()
    thread.join(10)
    assert [n.sequence for n in feed.notices_after(login.pk, after)] == [98, 99]


# -- the game stream with views ----------------------------------------------------------------


def test_a_game_stream_with_views_gives_each_batchs_last_event_the_callers_view(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(11), moves=4)
    game.refresh_from_db()
    for name in ("alice", None):
        token = world.tokens[name] if name else None
        path = f"/api/v1/games/{game.pk}/stream?timeout=0.2&view=true"
        sent = events_of(read_sse(api, path, token))
        assert [int(f["id"]) for f in sent] == list(range(1, game.sequence + 1))
        assert [f["data"]["view"] for f in sent[:-1]] == [None] * (len(sent) - 1)
        view = sent[-1]["data"]["view"]
        status, plain, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
        assert view["sequence"] == game.sequence and timeless(view) == timeless(plain)
        assert view["role"] == ("seat" if name else "spectator")
    # Without it, the events as before.
    plain_frames = events_of(read_sse(api, f"/api/v1/games/{game.pk}/stream?timeout=0.1"))
    assert all("view" not in f["data"] for f in plain_frames)
    status, problem, _ = api.get(f"/api/v1/games/{game.pk}/stream?view=maybe")
    assert status == 400 and problem["field"] == "view"


def test_a_game_stream_with_views_sends_a_move_with_the_view_it_left(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    path = f"/api/v1/games/{game.pk}/stream?timeout=0.2&view=true"
    token = world.tokens["bob"]
    last = str(game.sequence)
    step(game, random.Random(12))
    game.refresh_from_db()
    sent = events_of(read_sse(api, path, token, **{"Last-Event-ID": last}))
    assert sent and sent[-1]["data"]["view"]["sequence"] == int(sent[-1]["id"]) == game.sequence


# -- clocks ------------------------------------------------------------------------------------


def test_every_view_carries_the_server_time_and_each_waited_seats_milliseconds_left(
    world: ClubWorld, api: Api
) -> None:
    made = tournament(
        world.club,
        [world.players[n] for n in ("alice", "bob", "carol")],
        game="old_maid",
        rounds=1,
        series=series_of("old_maid", 1),
        check_in=True,
        table_min=3,
        table_max=3,
        turn_seconds=60,
    )
    game = Game.objects.get(table__round=begin_round(made, auto_check_in=False))
    before = time.time()
    for token in (world.tokens["alice"], None):
        status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
        assert status == 200 and view["deadlines"]
        now = datetime.fromisoformat(view["server_time"])
        assert before - 1 <= now.timestamp() <= time.time() + 1
        for entry in view["deadlines"]:
            left = (datetime.fromisoformat(entry["at"]) - now).total_seconds() * 1000
            assert abs(entry["remaining_ms"] - left) <= 1
            assert 0 < entry["remaining_ms"] <= (60 + made.first_turn_grace) * 1000


def test_a_view_without_a_clock_has_no_remaining_time(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    status, view, _ = api.get(f"/api/v1/games/{game.pk}")
    assert status == 200 and view["deadlines"] == [] and "remaining_ms" not in view
    assert datetime.fromisoformat(view["server_time"]).tzinfo is not None


def test_a_seat_handed_to_a_bot_is_shown_in_that_seats_own_view(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat = seat_of_name(world, game, "bob")
    mine = f"/api/v1/games/{game.pk}"
    assert not any(s["autoplay"] for s in view_now(api, world, "bob", game)["sitting"])
    status, _, _ = api.post(f"{mine}/autoplay", token=world.tokens["bob"])
    assert status == 200
    for name in ("bob", "alice", None):  # the seat itself, another seat, a spectator
        status, view, _ = api.get(mine, token=world.tokens[name] if name else None)
        assert [s["autoplay"] for s in view["sitting"]] == [n == seat for n in range(3)]
    status, _, _ = api.delete(f"{mine}/autoplay", token=world.tokens["bob"])
    assert status == 200
    assert not view_now(api, world, "bob", game)["sitting"][seat]["autoplay"]


# -- under ASGI --------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.redis
def test_an_asgi_account_stream_is_woken_by_its_logins_channel(
    world: ClubWorld, settings: Any, on_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import redis_url
    from tests.api.test_waiting_asgi import STREAM_SECONDS, asleep_on_the_hub, follow_stream

    # As tests/api/test_waiting_asgi.py's hub tests: the move is made once both streams
    # wait on the subscribed hub, and a turn that arrives before their last read, at their
    # end, came by the message on the login's channel.
    settings.REDIS_URL = redis_url()
    game, _, _, later = a_move_in_a_moment(world, asleep_on_the_hub(monkeypatch, settings, 2))
    names = [n for n in ("alice", "bob", "carol") if n != later.name]
    lasts = {n: str(feed.last_position(world.users[n].pk)) for n in names}

    async def both() -> list[list[tuple[float, str]]]:
        paths = {n: f"{STREAM}?timeout={STREAM_SECONDS}&last_event_id={lasts[n]}" for n in names}
        return list(
            await asyncio.gather(*(follow_stream(paths[n], world.tokens[n], "data") for n in names))
        )

    started = time.monotonic()
    followed = asyncio.run(both())
    acted, body = later.result()
    assert acted == 200, body
    arrived = [at - started for frames in followed for at, _ in frames]
    # Each seat the move left waited for hears of it, at once.
    game.refresh_from_db()
    told = [n for n in names if seat_of_name(world, game, n) in game.waiting_for]
    assert told and len(arrived) == len(told), followed
    assert all(ACT_AFTER <= at < STREAM_SECONDS for at in arrived), arrived
    assert all(
        f'"sequence":{body["sequence"]}' in data for frames in followed for _, data in frames
    )
