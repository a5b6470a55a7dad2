"""Bot seats, turn timeouts, the sweep and seats handed to a bot, in this process.

These run the tasks' code directly (or eagerly, ``CELERY_TASK_ALWAYS_EAGER``) on
the test database of either backend; ``test_real_workers.py`` runs the same
through real worker processes, PostgreSQL and Redis.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from engine.bots import BOTS, RandomBot
from engine.contract import Action, View
from engine.registry import get_game
from parlour.celery import app as celery_app
from tests.factories import begin_round, bot_game, events, running_game, seat_of, table_tournament
from tournaments import play as service
from tournaments import services
from tournaments.models import Game, Round, TableSeat, Tournament
from tournaments.services import ServiceError
from tournaments.workers import clock, tasks
from tournaments.workers.autoplay import bot_seats, run_bots

FAR_FUTURE = timezone.now() + timedelta(days=3650)


def cards_in(value: Any) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


class SpyBot:
    """A random bot that checks what it is given: the seat's view, and nothing hidden from it."""

    level = "spy"
    seen: list[int] = []

    def choose(self, view: View, rng: random.Random) -> Action | None:
        seat = view["viewer"]
        assert view == service.game_view(view["game_id"], seat)
        hidden = get_game(view["game"]).hidden(service.load_state(view["game_id"]))
        others = set().union(*(set(v) for k, v in hidden.items() if k != f"seat:{seat}"))
        assert not cards_in(view) & others, "a bot was shown cards hidden from its seat"
        SpyBot.seen.append(seat)
        return RandomBot().choose(view, rng)


@pytest.fixture
def spy() -> Iterator[type[SpyBot]]:
    BOTS.setdefault("old_maid", {})["spy"] = SpyBot
    SpyBot.seen = []
    try:
        yield SpyBot
    finally:
        BOTS["old_maid"].pop("spy", None)


def person_waited(game: Game) -> int | None:
    """The person's seat the game waits for (bots are the other seats), if any."""
    game.refresh_from_db()
    bots = bot_seats(game)
    people = [s for s in game.waiting_for if s not in bots]
    return people[0] if people else None


def play_bots_until_person(game: Game) -> int:
    """Bot moves until the game waits for a person; that person's seat."""
    run_bots(game.pk)
    seat = person_waited(game)
    assert seat is not None, "the game ended before the person's turn came"
    return seat


# -- bots ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_bot_decides_from_its_seats_view_and_sees_no_hidden_card(
    eager: None, spy: type[SpyBot]
) -> None:
    game = bot_game("old_maid", ["spy", "spy", "spy"])
    game.refresh_from_db()
    assert game.is_over, "the bots' moves chain after each commit until the end"
    assert set(spy.seen) == {0, 1, 2} and len(spy.seen) > 10
    moves = [e for e in events(game) if e.cause_kind == "bot"]
    assert len(spy.seen) >= len(moves) and {e.cause_id for e in moves} == {"spy"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_random_and_heuristic_bots_play_every_game_to_its_end(eager: None, kind: str) -> None:
    levels: list[str | None] = ["random", "heuristic", "heuristic", "random"]
    game = bot_game(kind, levels)
    game.refresh_from_db()
    assert game.is_over and game.result is not None
    moves = [e for e in events(game) if e.cause_kind == "bot"]
    assert moves and all(e.cause_id == levels[e.payload["seat"]] for e in moves)
    assert all(e.cause_kind in ("organiser", "bot", "system") for e in events(game))


@pytest.mark.django_db
def test_a_bot_task_delivered_twice_changes_nothing_the_second_time() -> None:
    game = bot_game("give_away", [None, "heuristic", None], dealer=0)
    game.refresh_from_db()
    at = game.sequence
    assert game.waiting_for == [1]
    assert tasks.bot_move(game.pk, at) is not None
    after = events(game)
    assert tasks.bot_move(game.pk, at) is None  # the duplicate
    assert tasks.bot_move(game.pk, at - 1) is None  # a late one
    assert events(game) == after


@pytest.mark.django_db
def test_a_bot_task_overtaken_by_the_seats_timeout_changes_nothing() -> None:
    game = bot_game("give_away", [None, "random", None], dealer=0, turn_seconds=30)
    game.refresh_from_db()
    at = game.sequence
    assert game.waiting_for == [1]  # the bot (left of the dealer) leads
    clock.fire_timeout(game.pk, 1, at, now=FAR_FUTURE)  # the bot's clock ran out first
    after = events(game)
    assert after[-1].cause_kind == "timeout"
    assert tasks.bot_move(game.pk, at) is None
    assert events(game) == after


# -- timeouts ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_timeout_applies_the_engines_timeout_action_once_the_deadline_passed() -> None:
    game = bot_game("bhabhi", [None, "heuristic", "heuristic"], turn_seconds=30)
    seat = play_bots_until_person(game)
    due = clock.deadline_of(game, seat)
    assert due is not None
    at = game.sequence
    assert clock.fire_timeout(game.pk, seat, at, now=due - timedelta(seconds=1)) is None
    assert events(game)[-1].sequence == at
    result = clock.fire_timeout(game.pk, seat, at, now=due)
    assert result is not None
    first = result.events[0]
    assert (first.cause_kind, first.cause_id, first.payload["seat"]) == ("timeout", str(seat), seat)
    assert first.idempotency_key == f"timeout-{seat}-{at}"
    # Fired again (a duplicate task, or the sweep after the fast path): nothing changes.
    before = events(game)
    assert clock.fire_timeout(game.pk, seat, at, now=due) is None
    assert tasks.timeout(game.pk, seat, at) is None
    assert events(game) == before


@pytest.mark.django_db
def test_a_timeout_overtaken_by_the_persons_own_move_changes_nothing() -> None:
    game = bot_game("give_away", [None, "random"], turn_seconds=30)
    seat = play_bots_until_person(game)
    at = game.sequence
    action = get_game("give_away").legal_actions(service.load_state(game), seat)[0]
    service.submit_action(game.pk, seat, action, expected_sequence=at)
    after = events(game)
    assert clock.fire_timeout(game.pk, seat, at, now=FAR_FUTURE) is None
    assert events(game) == after


@pytest.mark.django_db
def test_a_timeout_task_run_just_before_the_deadline_waits_for_it() -> None:
    game = bot_game("give_away", [None, "random"], turn_seconds=1)
    seat = play_bots_until_person(game)
    due = clock.deadline_of(game, seat)
    assert due is not None
    new_sequence = tasks.timeout(game.pk, seat, game.sequence)
    assert new_sequence is not None
    applied = events(game)[game.sequence]
    assert applied.cause_kind == "timeout"
    assert due <= applied.recorded_at < due + timedelta(seconds=0.5)


def test_a_deadline_beyond_the_brokers_visibility_is_queued_within_it(settings: Any) -> None:
    # A Redis broker hands a task held past its visibility timeout to another worker: a
    # turn of a day would be delivered again every hour while it waited.
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
    now = timezone.now()
    soon, tomorrow = now + timedelta(minutes=10), now + timedelta(days=1)
    assert tasks.held_until(soon) == soon
    held = tasks.held_until(tomorrow)
    assert held is not None and now + timedelta(minutes=29) < held <= timezone.now() + timedelta(
        minutes=30
    )
    assert tasks.held_until(None) is None
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}  # the embedded broker: held as long as due
    assert tasks.held_until(tomorrow) == tomorrow


@pytest.mark.django_db
def test_a_turn_of_a_day_is_queued_within_the_brokers_visibility(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The ETA the dispatch after a move gives the person's timeout: held_until's, not the
    # deadline itself (a review's gap: the helper alone was tested).
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
    game = bot_game("give_away", [None, "random"], turn_seconds=86_400)
    play_bots_until_person(game)
    game.refresh_from_db()
    queued: list[Any] = []
    monkeypatch.setattr(tasks.timeout, "apply_async", lambda *a, **kw: queued.append(kw["eta"]))
    monkeypatch.setattr(tasks.bot_move, "apply_async", lambda *a, **kw: None)
    monkeypatch.setattr(tasks.forced_move, "apply_async", lambda *a, **kw: None)
    assert not tasks.bot_move.app.conf.task_always_eager  # a worker's clock: timeouts queued
    tasks.dispatch(game)
    assert queued and all(eta <= timezone.now() + timedelta(minutes=30) for eta in queued)


@pytest.mark.django_db
def test_the_sweep_applies_every_expired_deadline_and_leaves_the_others() -> None:
    games = [bot_game("give_away", [None, "random"], turn_seconds=30) for _ in range(3)]
    waiting = [(g, play_bots_until_person(g)) for g in games]
    due = max(clock.deadline_of(g, s) or FAR_FUTURE for g, s in waiting)
    assert clock.sweep(now=due - timedelta(seconds=31)).timeouts == []
    report = clock.sweep(now=due)
    assert sorted(report.timeouts) == sorted((g.pk, s, g.sequence) for g, s in waiting)
    for game, seat in waiting:
        last = [e for e in events(game) if e.cause_kind == "timeout"]
        assert [e.payload["seat"] for e in last] == [seat]


@pytest.mark.django_db
def test_the_sweep_queues_again_the_move_of_a_bot_whose_task_was_lost(eager: None) -> None:
    # Outside a transactional test nothing is queued after a commit: the bot's
    # task is "lost" from the start, and only the sweep can move the game.
    game = bot_game("give_away", ["random", "heuristic"])
    game.refresh_from_db()
    at = game.sequence
    cache.delete(f"parlour:requeued:{game.pk}:{at}")  # left by an earlier run's game of that id
    assert clock.sweep(now=timezone.now() - timedelta(seconds=30)).requeued == []
    report = clock.sweep(now=FAR_FUTURE)
    assert report.requeued == [(game.pk, at)]
    game.refresh_from_db()
    assert game.sequence > at and events(game)[at].cause_kind == "bot"
    # The same stall is queued once per stall period, not at every sweep.
    assert (game.pk, at) not in clock.sweep(now=FAR_FUTURE).requeued


# -- seats handed to a bot -----------------------------------------------------------------


@pytest.mark.django_db
def test_repeated_timeouts_hand_the_seat_to_a_bot_and_the_player_takes_it_back() -> None:
    night, players = table_tournament(
        "bhabhi", people=1, bots=["heuristic", "heuristic"], turn_seconds=30, timeouts_to_bot=2
    )
    begin_round(night)
    game = running_game(night)
    person = seat_of(game, players["person 0"])
    for count in (1, 2):
        seat = play_bots_until_person(game)
        assert seat == person.seat
        assert clock.fire_timeout(game.pk, seat, game.sequence, now=FAR_FUTURE) is not None
        person.refresh_from_db()
        assert person.timeouts_in_a_row == count
        assert person.autoplay is (count == 2)
    game.refresh_from_db()
    assert bot_seats(game)[person.seat] == "heuristic"
    stranger = User.objects.create_user("stranger", password="not-used-here")
    with pytest.raises(PermissionDenied, match="Person 0"):
        clock.take_back_seat(person, stranger)
    person.refresh_from_db()
    assert person.autoplay
    taken = clock.take_back_seat(game, players["person 0"].user, seat=person.seat)
    assert (taken.autoplay, taken.timeouts_in_a_row) == (False, 0)
    person.refresh_from_db()
    assert (person.autoplay, person.timeouts_in_a_row) == (False, 0)
    assert person.seat not in bot_seats(game)
    assert person_waited(game) == person.seat or run_bots(game.pk) >= 0


@pytest.mark.django_db
def test_the_players_own_action_resets_their_timeouts_in_a_row() -> None:
    night, players = table_tournament(
        "bhabhi", people=1, bots=["heuristic", "heuristic"], turn_seconds=30, timeouts_to_bot=3
    )
    begin_round(night)
    game = running_game(night)
    person = seat_of(game, players["person 0"])
    engine = get_game("bhabhi")

    seat = play_bots_until_person(game)
    clock.fire_timeout(game.pk, seat, game.sequence, now=FAR_FUTURE)
    person.refresh_from_db()
    assert person.timeouts_in_a_row == 1

    seat = play_bots_until_person(game)
    action = engine.legal_actions(service.load_state(game), seat)[0]
    service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
    game.refresh_from_db()
    assert clock.note_own_actions(game) == 1  # what the receiver does after the commit
    person.refresh_from_db()
    assert person.timeouts_in_a_row == 0

    # Even if the receiver missed the action, the next timeout counts from 1 again.
    person.timeouts_in_a_row = 2
    person.save()
    seat = play_bots_until_person(game)
    clock.fire_timeout(game.pk, seat, game.sequence, now=FAR_FUTURE)
    person.refresh_from_db()
    assert (person.timeouts_in_a_row, person.autoplay) == (1, False)


@pytest.mark.django_db
def test_a_player_or_organiser_may_hand_a_seat_to_a_bot_and_nobody_else() -> None:
    night, players = table_tournament("give_away", people=2, bots=["random"])
    begin_round(night)
    game = running_game(night)
    first = seat_of(game, players["person 0"])
    other = players["person 1"].user
    with pytest.raises(PermissionDenied):
        clock.hand_to_bot(first, other)
    first.refresh_from_db()
    assert not first.autoplay
    assert clock.hand_to_bot(game.pk, players["person 0"].user, seat=first.seat).autoplay
    organiser = User.objects.create_user("organiser", password="not-used-here")
    night.club.organisers.add(organiser)
    assert not clock.take_back_seat(first, organiser).autoplay
    bot = seat_of(game, players["bot 0"])
    with pytest.raises(PermissionDenied, match="is a bot"):
        clock.take_back_seat(bot, organiser)
    with pytest.raises(ServiceError, match="has no seat 7"):
        clock.take_back_seat(game, organiser, seat=7)
    standalone = bot_game("give_away", [None, "random"])
    with pytest.raises(ServiceError, match="not played at a tournament table"):
        clock.hand_to_bot(standalone, organiser, seat=0)
    assert TableSeat.objects.filter(autoplay=True).count() == 0


# -- tournaments of bots -----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_tournament_of_bots_plays_all_its_rounds_once_begun(eager: None) -> None:
    night, _ = table_tournament("give_away", bots=["random", "heuristic", "heuristic"], rounds=3)
    begin_round(night)
    night.refresh_from_db()
    assert night.status == Tournament.Status.FINISHED
    rounds = Round.objects.filter(tournament=night).order_by("number")
    assert [r.status for r in rounds] == [Round.Status.FINISHED] * 3
    assert not Game.objects.filter(status=Game.Status.RUNNING).exists()


@pytest.mark.django_db(transaction=True)
def test_a_tournament_with_a_person_does_not_start_rounds_on_its_own(eager: None) -> None:
    night, players = table_tournament("give_away", people=1, bots=["random", "random"], rounds=2)
    person_user = players["person 0"].user
    assert person_user is not None
    services.set_play_forced_moves(person_user, False)  # the person plays until handed over
    begin_round(night)
    game = running_game(night)
    person = seat_of(game, players["person 0"])
    clock.hand_to_bot(person)  # the system hands it over: the bot plays the round out
    night.refresh_from_db()
    rounds = list(Round.objects.filter(tournament=night))
    assert [r.status for r in rounds] == [Round.Status.FINISHED]
    assert night.status == Tournament.Status.RUNNING


def test_the_sweep_is_on_beats_schedule_every_sweep_seconds() -> None:
    from django.conf import settings

    entries = list(celery_app.conf.beat_schedule.values())
    assert [e["task"] for e in entries] == ["tournaments.tasks.sweep"]
    assert entries[0]["schedule"] == settings.PARLOUR_SWEEP_SECONDS
    assert celery_app.conf.task_acks_late and celery_app.conf.task_reject_on_worker_lost
    assert celery_app.conf.worker_prefetch_multiplier == 1
