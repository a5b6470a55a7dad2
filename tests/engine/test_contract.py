"""The conformance suite: every registered game, every seat count, random deals.

The same properties hold for all four games, and for the toy game of
tests/toy_game (Last Card), so that the example of docs/engine.md's "How to add a
game" is held to them too (OpenSpiel's random-simulation test, made into
hypothesis properties):

* every card of the deal is somewhere after every event;
* folding the event list gives the state reached by applying events one by one;
* every action ``legal_actions`` offers is accepted by ``decide``, and actions
  it does not offer are refused;
* every random legal game ends;
* a record exported and imported again gives the identical state and result;
* the view of a seat holds no card hidden from it;
* a forced action (the service may play it for the seat) is legal, and forced
  only where the seat is waited for with nothing else to do (Give Away: always).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import full_deck
from engine.contract import Game, IllegalAction, action_key
from engine.play import new_deal, play_random
from engine.record import export_record, import_record
from engine.registry import all_games, register, unregister
from tests.toy_game.last_card import GAME as TOY

GAMES = sorted([*all_games(), TOY], key=lambda g: g.id)
CASES = [(g.id, n) for g in GAMES for n in range(g.min_seats, g.max_seats + 1)]
PROPERTY = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True, scope="module")
def _toy_game_registered() -> Iterator[None]:
    """The toy game in the registry while this module runs (a record's import looks it up)."""
    register(TOY)
    yield
    unregister(TOY.id)


def _game(game_id: str) -> Game[Any]:
    return next(g for g in GAMES if g.id == game_id)


def _played(game_id: str, seats: int, seed: int) -> tuple[Game[Any], list[dict[str, Any]]]:
    game = _game(game_id)
    rng = random.Random(seed)
    return game, play_random(game, new_deal(game, seats, rng), rng).events


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_every_card_is_accounted_for_after_every_event(game_id: str, seats: int, seed: int) -> None:
    game, events = _played(game_id, seats, seed)
    deck = sorted(events[0]["deck"])
    state = None
    for event in events:
        state = game.evolve(state, event)
        assert sorted(game.cards(state)) == deck


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_folding_the_events_equals_applying_them_one_by_one(
    game_id: str, seats: int, seed: int
) -> None:
    game, events = _played(game_id, seats, seed)
    state = None
    for i, event in enumerate(events):
        state = game.evolve(state, event)
        if i % 7 == 0 or i == len(events) - 1:
            assert game.fold(events[: i + 1]) == state
    assert game.is_over(state)


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_legal_actions_are_accepted_and_others_refused(game_id: str, seats: int, seed: int) -> None:
    game, events = _played(game_id, seats, seed)
    rng = random.Random(seed)
    state = game.fold(events[:1])
    for event in events[1:]:
        if game.chance_outcomes(state) is None:
            for seat in range(seats):
                legal = game.legal_actions(state, seat)
                assert legal == sorted(legal, key=action_key), "legal actions come sorted"
                assert bool(legal) == (seat in game.to_act(state))
                for action in legal:
                    game.decide(state, seat, action)  # must not raise
                offered = {action_key(a) for a in legal}
                for candidate in _candidates(game, state, seat, rng):
                    if action_key(candidate) in offered:
                        continue
                    if _is_representative_variant(game, state, seat, candidate, legal):
                        continue
                    with pytest.raises(IllegalAction):
                        game.decide(state, seat, candidate)
        state = game.evolve(state, event)
    for seat in range(seats):
        assert game.legal_actions(state, seat) == []
        with pytest.raises(IllegalAction):
            game.decide(state, seat, {"type": "pass"})


def _candidates(game: Game[Any], state: Any, seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """Actions of every shape the games know, most of them illegal here."""
    cards = rng.sample(full_deck(), 6)
    found: list[dict[str, Any]] = [
        {"type": "pass"},
        {"type": "take_left"},
        {"type": "nonsense"},
        {"type": "draw", "index": -1},
        {"type": "draw", "index": 99},
        {"type": "declare_ace", "pile": "left", "value": 7},
        {"type": "declare_ace", "pile": "middle", "value": 14},
        {"type": "place_capture", "pile": "up"},
        {"type": "arrange", "order": cards},
        {"type": "take", "count": 0},
        {"type": "take", "count": 4},
        {"type": "take", "count": 1, "card": cards[0]},
    ]
    for card in cards:
        found.append({"type": "play", "card": card})
        found.append({"type": "play", "card": card, "foundation": rng.randrange(4)})
        found.append({"type": "draw_discard", "card": card})
    for pile in ("left", "right"):
        found.append({"type": "declare_ace", "pile": pile, "value": 1})
        found.append({"type": "declare_ace", "pile": pile, "value": 14})
        found.append({"type": "place_capture", "pile": pile})
    return found


def _is_representative_variant(
    game: Game[Any], state: Any, seat: int, candidate: dict[str, Any], legal: list[dict[str, Any]]
) -> bool:
    """An arrange of the seat's own fan in another order stands behind the one listed."""
    if candidate["type"] != "arrange":
        return False
    listed = [a for a in legal if a["type"] == "arrange"]
    return any(sorted(a["order"]) == sorted(candidate["order"]) for a in listed)


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_a_record_round_trip_gives_the_same_state_and_result(
    game_id: str, seats: int, seed: int
) -> None:
    game, events = _played(game_id, seats, seed)
    record = export_record(events)
    again = import_record(json.loads(json.dumps(record)))
    assert again == events
    assert game.fold(again) == game.fold(events)
    assert record["result"] == game.outcome(game.fold(events)) is not None


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_no_view_shows_a_card_hidden_from_its_viewer(game_id: str, seats: int, seed: int) -> None:
    game, events = _played(game_id, seats, seed)
    state = None
    for event in events[:-1]:
        state = game.evolve(state, event)
        if event["type"] == "dealt":
            continue
        for viewer in [None, *range(seats)]:
            shown = _cards_in(game.view(state, viewer))
            assert shown <= _visible_to(game, state, viewer), (viewer, shown)


def _cards_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str) and len(value) == 2 and value in _ALL:
        found.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            found |= _cards_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= _cards_in(v)
    return found


_ALL = set(full_deck())


def _visible_to(game: Game[Any], state: Any, viewer: int | None) -> set[str]:
    """Cards the viewer may see: everything not hidden from them.

    ``hidden(state)`` lists the hidden cards per holder; a seat may see its own
    (``"seat:<n>"`` keys, or a list under its index) where the game allows.
    """
    hidden = game.hidden(state)
    secret: set[str] = set()
    for key, value in hidden.items():
        if viewer is not None and key == f"seat:{viewer}":
            continue
        secret |= _cards_in(value)
    return _ALL - secret


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_a_forced_action_is_a_waited_seats_legal_action_and_the_only_one_unless_all_are_alike(
    game_id: str, seats: int, seed: int
) -> None:
    game, events = _played(game_id, seats, seed)
    state = game.fold(events[:1])
    for event in events[1:]:
        for seat in range(seats):
            forced = game.forced_action(state, seat)
            legal = game.legal_actions(state, seat)
            if forced is None:
                assert game_id != "give_away" or seat not in game.waiting_for(state)
                continue
            assert seat in game.waiting_for(state) and forced in legal
            assert len(legal) == 1 or game_id == "give_away"
            game.decide(state, seat, forced)
        state = game.evolve(state, event)


def test_every_game_declares_its_metadata() -> None:
    ids = [g.id for g in GAMES]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for game in GAMES:
        assert 2 <= game.min_seats <= game.max_seats <= 8
        assert len(game.deck) in (51, 52)
        assert isinstance(game.chance, bool) and isinstance(game.simultaneous, bool)
        assert game.name and game.default_series.target >= 1


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_every_legal_action_is_something_a_seat_may_say(
    game_id: str, seats: int, seed: int
) -> None:
    game, events = _played(game_id, seats, seed)
    rng = random.Random(seed)
    state = None
    for event in events[:-1]:
        state = game.evolve(state, event)
        for seat in game.to_act(state):
            for action in game.legal_actions(state, seat):
                resolved, chance = game.request(state, seat, action, rng)
                assert not chance and game.check(state, seat, resolved, False) is not None


@pytest.mark.parametrize(("game_id", "seats"), CASES)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_no_event_shows_a_viewer_a_card_hidden_from_them_at_that_point(
    game_id: str, seats: int, seed: int
) -> None:
    """Every event so far, as each viewer sees it at each point of the game, names only cards
    that viewer could see just before or just after it, or that the move took out of its
    maker's own hand (played face up: Bhabhi's first trick goes face down at once), unless
    the viewer made that move."""
    game, events = _played(game_id, seats, seed)
    states: list[Any] = []
    state = None
    for event in events:
        state = game.evolve(state, event)
        states.append(state)
    step = max(1, len(events) // 12)
    for now_index in range(1, len(events) - 1, step):
        now = states[now_index]
        for viewer in [None, *range(seats)]:
            for index in range(1, now_index + 1):
                event = events[index]
                if event.get("seat") == viewer:
                    continue
                before = states[index - 1]
                seen = _visible_to(game, before, viewer) | _visible_to(game, states[index], viewer)
                actor = f"seat:{event['seat']}"
                seen |= _cards_in(game.hidden(before).get(actor)) - _cards_in(
                    game.hidden(states[index]).get(actor)
                )
                shown = game.event_view(event, before, now, viewer)
                assert _cards_in(shown) <= seen, (viewer, event, shown)
            assert "deck" not in game.event_view(events[0], None, now, viewer)


def test_a_give_and_take_declaration_is_hidden_from_the_others_until_its_round_is_revealed() -> (
    None
):
    game = _game("give_and_take")
    for seed in range(200):
        rng = random.Random(seed)
        state = game.fold(new_deal(game, 2, rng))
        if len(game.waiting_for(state)) == 2 and state.phase == "declare":
            break
    else:
        pytest.fail("no deal with two aces to declare at once in 200 seeds")
    first, second = game.waiting_for(state)
    action = game.legal_actions(state, first)[0]
    [event] = game.decide(state, first, action)
    after = game.evolve(state, event)
    assert state.phase == after.phase == "declare"
    hidden = game.event_view(event, state, after, second)
    assert hidden["redacted"] == ["pile", "value"] and set(hidden["action"]) == {"type"}
    assert game.event_view(event, state, after, None)["action"] == {"type": "declare_ace"}
    assert game.event_view(event, state, after, first)["action"] == action
    [last] = game.decide(after, second, game.legal_actions(after, second)[0])
    revealed = game.evolve(after, last)
    assert game.event_view(event, state, revealed, second)["action"] == action


def test_a_seat_may_not_name_what_the_server_decides() -> None:
    """An Old Maid draw naming a card is refused before the fan is looked at: the refusal is
    the same whether the card is there or not (no oracle)."""
    game = _game("old_maid")
    rng = random.Random(3)
    events = new_deal(game, 2, rng)
    state = game.fold(events)
    seat = game.to_act(state)[0]
    offered = state.hands[state.offerer]
    answers = set()
    for card in [offered[0], next(c for c in _ALL if c not in offered)]:
        with pytest.raises(IllegalAction) as refused:
            game.request(state, seat, {"type": "draw", "index": 0, "card": card}, rng)
        answers.add((refused.value.reason, refused.value.field))
    assert len(answers) == 1 and answers.pop()[1] == "card"
