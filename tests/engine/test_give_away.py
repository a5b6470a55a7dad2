"""Give Away (shared foundations, turn-based): seed 000 and CONVENTIONS.md."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.bots import make_bot
from engine.cards import deal_round_robin, full_deck
from engine.contract import IllegalAction, sorted_actions
from engine.games.give_away import GAME, GiveAwayState
from engine.play import new_deal, play_bots, play_random
from engine.registry import get_game
from engine.series import SeriesFormat

G = GAME


def stacks_deck(tops: Mapping[int, Sequence[str]], seats: int = 4, dealer: int = 0) -> list[str]:
    """A deck whose deal gives each seat a stack starting (from the top) with ``tops[seat]``.

    The rest of every stack is filled, below the given cards, with the unused
    cards in the fixed full-deck order.
    """
    wanted = [list(tops.get(s, ())) for s in range(seats)]
    used = {c for top in wanted for c in top}
    assert len(used) == sum(len(t) for t in wanted), "a card is named twice"
    rest = [c for c in full_deck() if c not in used]
    sizes = [
        52 // seats + (1 if (s - dealer - 1) % seats < 52 % seats else 0) for s in range(seats)
    ]
    bottom_first: list[list[str]] = []
    for s in range(seats):
        fill = sizes[s] - len(wanted[s])
        top_first = wanted[s] + rest[:fill]
        rest = rest[fill:]
        bottom_first.append(top_first[::-1])
    deck = [bottom_first[(dealer + 1 + i) % seats][i // seats] for i in range(52)]
    assert deal_round_robin(deck, seats, dealer) == bottom_first
    return deck


def deal(tops: Mapping[int, Sequence[str]], seats: int = 4, dealer: int = 0) -> GiveAwayState:
    state: GiveAwayState = G.fold(G.deal(seats, dealer, stacks_deck(tops, seats, dealer)))
    return state


def act(state: GiveAwayState, seat: int, action: dict[str, Any]) -> GiveAwayState:
    events = G.decide(state, seat, action)
    assert len(events) == 1
    new: GiveAwayState = G.evolve(state, events[0])
    return new


def play(state: GiveAwayState, seat: int, card: str, foundation: int) -> GiveAwayState:
    return act(state, seat, {"type": "play", "card": card, "foundation": foundation})


def pass_(state: GiveAwayState, seat: int) -> GiveAwayState:
    return act(state, seat, {"type": "pass"})


def refused(state: GiveAwayState, seat: int, action: dict[str, Any]) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        G.decide(state, seat, action)
    return info.value


PASS = {"type": "pass"}


# -- metadata and the deal ------------------------------------------------------


def test_metadata_matches_the_conventions() -> None:
    assert get_game("give_away") is G
    assert (G.min_seats, G.max_seats) == (2, 6)
    assert sorted(G.deck) == sorted(full_deck())
    assert G.chance is False and G.simultaneous is False
    assert G.default_series == SeriesFormat("first_to", 3)


def test_options_are_refused() -> None:
    with pytest.raises(IllegalAction):
        G.deal(4, 0, list(full_deck()), {"target": 5})


@pytest.mark.parametrize("seats", [1, 7])
def test_seat_counts_outside_two_to_six_are_refused(seats: int) -> None:
    with pytest.raises(IllegalAction):
        G.deal(seats, 0, list(full_deck()))


@pytest.mark.parametrize("seats", range(2, 7))
def test_each_stack_is_the_dealt_cards_with_the_last_dealt_face_up(seats: int) -> None:
    deck = list(full_deck())
    random.Random(seats).shuffle(deck)
    dealer = seats - 1
    state = G.fold(G.deal(seats, dealer, deck))
    hands = deal_round_robin(deck, seats, dealer)
    view = G.table_view(state, None)
    assert view["face_up"] == [h[-1] for h in hands]
    assert view["stack_sizes"] == [len(h) - 1 for h in hands]
    assert G.hidden(state) == {"stacks": [h[:-1] for h in hands]}
    assert max(map(len, hands)) - min(map(len, hands)) <= 1
    assert all(f == {"top": None, "size": 0} for f in view["foundations"])


@pytest.mark.parametrize(("seats", "dealer", "first"), [(4, 0, 1), (4, 3, 0), (2, 1, 0), (6, 2, 3)])
def test_the_dealers_left_neighbour_moves_first(seats: int, dealer: int, first: int) -> None:
    state = deal({}, seats, dealer)
    assert G.to_act(state) == G.waiting_for(state) == [first]
    assert G.table_view(state, None)["turn"] == first


# -- the seed's worked example ----------------------------------------------------


def test_seed_example_chain_of_forced_plays_stops_at_the_nine() -> None:
    # A (seat 1, left of the dealer) turns up A♠ over 2♣, 3♦, 9♥; nobody else shows an ace.
    state = deal({1: ["AS", "2C", "3D", "9H"], 2: ["5S"], 3: ["6S"], 0: ["7S"]})
    assert G.table_view(state, None)["face_up"] == ["7S", "AS", "5S", "6S"]
    # The ace must start a foundation: any empty slot, no pass.
    assert G.legal_actions(state, 1) == [
        {"type": "play", "card": "AS", "foundation": k} for k in range(4)
    ]
    assert "must play" in refused(state, 1, PASS).reason
    state = play(state, 1, "AS", 0)
    # 2♣ goes on A♠ although the suit differs; still seat 1's turn.
    assert G.table_view(state, None)["face_up"][1] == "2C"
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "2C", "foundation": 0}]
    state = play(state, 1, "2C", 0)
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "3D", "foundation": 0}]
    state = play(state, 1, "3D", 0)
    # 9♥ cannot jump from 3♦: A stops with 9♥ face up and must pass.
    view = G.table_view(state, None)
    assert view["face_up"][1] == "9H"
    assert view["foundations"][0] == {"top": "3D", "size": 3}
    assert view["turn"] == 1
    assert G.legal_actions(state, 1) == [PASS]
    error = refused(state, 1, {"type": "play", "card": "9H", "foundation": 0})
    assert error.field == "foundation"
    assert "3D" in error.reason
    state = pass_(state, 1)
    assert G.to_act(state) == [2]
    assert G.table_view(state, None)["face_up"][1] == "9H"  # the card stays face up


def test_seed_example_nine_plays_once_another_foundation_reaches_eight() -> None:
    # Two players: A (seat 1) as in the seed; B (seat 0) then builds a second foundation
    # up to 8♠; on A's next turn 9♥ goes there.
    b = ["AH", "2H", "3H", "4C", "5H", "6H", "7H", "8S", "KC"]
    state = deal({1: ["AS", "2C", "3D", "9H", "TD"], 0: b}, seats=2, dealer=0)
    for card in ("AS", "2C", "3D"):
        state = play(state, 1, card, 0)
    state = pass_(state, 1)
    # B may not touch A's face-up card.
    error = refused(state, 0, {"type": "play", "card": "9H", "foundation": 0})
    assert error.field == "card"
    state = play(state, 0, "AH", 1)
    state = play(state, 0, "2H", 1)
    state = play(state, 0, "3H", 1)
    # 4♣ fits both foundations (tops 3♦ and 3♥): B chooses the second one.
    assert [a["foundation"] for a in G.legal_actions(state, 0)] == [0, 1]
    state = play(state, 0, "4C", 1)
    for card in ("5H", "6H", "7H", "8S"):
        state = play(state, 0, card, 1)
    assert G.legal_actions(state, 0) == [PASS]  # K♣ fits nothing
    state = pass_(state, 0)
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "9H", "foundation": 1}]
    state = play(state, 1, "9H", 1)
    assert G.table_view(state, None)["foundations"][1] == {"top": "9H", "size": 9}
    assert G.table_view(state, None)["face_up"][1] == "TD"
    assert G.legal_actions(state, 1) == [{"type": "play", "card": "TD", "foundation": 1}]


# -- mandatory play, foundations ----------------------------------------------------


def test_passing_while_a_play_is_possible_is_refused() -> None:
    state = deal({1: ["AD", "9C"]})
    error = refused(state, 1, PASS)
    assert error.reason == "you must play your face-up AD: it fits foundation 0 or 1 or 2 or 3"
    assert G.legal_actions(state, 1) == [
        {"type": "play", "card": "AD", "foundation": k} for k in range(4)
    ]
    # Nothing changed.
    assert G.to_act(state) == [1]
    assert G.table_view(state, None)["passes"] == 0


def test_a_play_is_refused_when_the_card_fits_nothing() -> None:
    state = deal({1: ["9C"]})
    assert G.legal_actions(state, 1) == [PASS]
    error = refused(state, 1, {"type": "play", "card": "9C", "foundation": 2})
    assert error.field == "foundation"
    assert "only an ace starts an empty foundation" in error.reason
    assert "must pass" in error.reason


def test_the_player_chooses_among_foundations_with_the_same_top() -> None:
    # Seat 1 starts two foundations with A♠ and A♥; its 2♣ then fits both.
    state = deal({1: ["AS", "AH", "2C", "3C"]})
    state = play(state, 1, "AS", 2)
    assert [a["foundation"] for a in G.legal_actions(state, 1)] == [0, 1, 3]
    state = play(state, 1, "AH", 0)
    assert G.legal_actions(state, 1) == [
        {"type": "play", "card": "2C", "foundation": 0},
        {"type": "play", "card": "2C", "foundation": 2},
    ]
    error = refused(state, 1, {"type": "play", "card": "2C", "foundation": 1})
    assert error.reason == (
        "only an ace starts an empty foundation, and foundation 1 is empty;"
        " 2C fits foundation 0 or 2"
    )
    chosen = play(state, 1, "2C", 2)
    assert [f["top"] for f in G.table_view(chosen, None)["foundations"]] == ["AH", None, "2C", None]
    other = play(state, 1, "2C", 0)
    assert [f["top"] for f in G.table_view(other, None)["foundations"]] == ["2C", None, "AS", None]
    # The timeout (and the heuristic bot) take the lowest-numbered fitting slot.
    assert G.timeout_action(state, 1, random.Random(0)) == {
        "type": "play",
        "card": "2C",
        "foundation": 0,
    }


def test_a_rank_goes_on_any_foundation_whose_top_is_one_lower_regardless_of_suit() -> None:
    state = deal({1: ["AC", "2D", "3H", "4S", "5C", "9D"], 2: ["AH", "2S", "KD"]})
    for card in ("AC", "2D", "3H", "4S", "5C"):
        state = play(state, 1, card, 0)
    state = pass_(state, 1)
    state = play(state, 2, "AH", 3)
    state = play(state, 2, "2S", 3)
    assert [f["top"] for f in G.table_view(state, None)["foundations"]] == ["5C", None, None, "2S"]
    error = refused(state, 2, {"type": "play", "card": "KD", "foundation": 0})
    assert error.reason == (
        "KD cannot go on 5C: foundation 0 takes a 6 next;"
        " KD fits no foundation now, so you must pass"
    )


def test_nothing_goes_on_a_king() -> None:
    run = [r + "S" for r in "A23456789TJQK"]
    state = deal({1: [*run, "AH"]}, seats=2, dealer=0)
    for card in run:
        state = play(state, 1, card, 0)
    assert G.table_view(state, None)["foundations"][0] == {"top": "KS", "size": 13}
    assert [a["foundation"] for a in G.legal_actions(state, 1)] == [1, 2, 3]
    error = refused(state, 1, {"type": "play", "card": "AH", "foundation": 0})
    assert error.reason.startswith("foundation 0 is complete: nothing goes on its king")


# -- winning -----------------------------------------------------------------------


def test_playing_the_last_card_wins_at_once() -> None:
    # Seat 1's whole stack is A♠ … K♠ from the top down.
    run = [r + "S" for r in "A23456789TJQK"]
    state = deal({1: run, 2: ["AH"], 3: ["AD"], 0: ["AC"]})
    for card in run[:-1]:
        state = play(state, 1, card, 0)
    # The face-down stack is empty but K♠ is still face up: not yet a win.
    view = G.table_view(state, None)
    assert view["stack_sizes"][1] == 0 and view["face_up"][1] == "KS"
    assert G.outcome(state) is None
    state = play(state, 1, "KS", 0)
    assert G.outcome(state) == {"winner": 1}
    assert G.is_over(state)
    assert G.to_act(state) == G.waiting_for(state) == []
    assert G.legal_actions(state, 2) == []
    assert G.table_view(state, None)["face_up"][1] is None
    assert G.table_view(state, None)["turn"] is None
    with pytest.raises(IllegalAction, match="over"):
        G.decide(state, 2, {"type": "play", "card": "AH", "foundation": 1})


def test_a_player_stuck_with_only_a_face_up_card_wins_when_it_is_played_later() -> None:
    # Six players, dealer 5: seat 0 moves first with nine cards, plays eight of them and
    # is stuck on T♥ with an empty stack; seat 1 brings the foundation to 9, and seat 0's
    # T♥ then goes out on its next turn.
    low = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    tops = {0: [*low, "TH"], 1: ["9H", "5D"], 2: ["4C"], 3: ["6C"], 4: ["7C"], 5: ["8C"]}
    state = deal(tops, seats=6, dealer=5)
    assert G.to_act(state) == [0]
    for card in low:
        state = play(state, 0, card, 0)
    view = G.table_view(state, None)
    assert view["stack_sizes"][0] == 0 and view["face_up"][0] == "TH"
    assert G.legal_actions(state, 0) == [PASS]
    state = pass_(state, 0)
    state = play(state, 1, "9H", 0)
    state = pass_(state, 1)
    for seat in (2, 3, 4, 5):
        state = pass_(state, seat)
    assert G.outcome(state) is None
    assert G.legal_actions(state, 0) == [{"type": "play", "card": "TH", "foundation": 0}]
    state = play(state, 0, "TH", 0)
    assert G.outcome(state) == {"winner": 0}


# -- deadlock -----------------------------------------------------------------------


def test_first_circle_deadlock_when_no_ace_is_showing_is_a_draw() -> None:
    state = deal({1: ["5S"], 2: ["9H"], 3: ["KD"], 0: ["2C"]})
    for seat, passes in ((1, 1), (2, 2), (3, 3)):
        assert G.legal_actions(state, seat) == [PASS]
        state = pass_(state, seat)
        assert G.table_view(state, None)["passes"] == passes
        assert G.outcome(state) is None
    assert G.to_act(state) == [0]
    state = pass_(state, 0)
    assert G.outcome(state) == {"winner": None, "deadlock": True, "counts": [13, 13, 13, 13]}
    assert G.to_act(state) == []


def test_deadlock_with_a_unique_smallest_count_wins() -> None:
    # Seat 1 plays A, 2 and sticks on 9; nobody else can move: a circle of four passes.
    state = deal({1: ["AS", "2D", "9H"], 2: ["5S"], 3: ["6S"], 0: ["7S"]})
    state = play(state, 1, "AS", 0)
    state = play(state, 1, "2D", 0)
    state = pass_(state, 1)
    state = pass_(state, 2)
    state = pass_(state, 3)
    assert G.outcome(state) is None
    state = pass_(state, 0)
    assert G.outcome(state) == {"winner": 1, "deadlock": True, "counts": [13, 11, 13, 13]}


def test_deadlock_with_a_tie_for_the_smallest_count_is_a_draw() -> None:
    state = deal({1: ["AS", "2D", "9H"], 2: ["AH", "2H", "9C"], 3: ["6S"], 0: ["7S"]})
    state = play(state, 1, "AS", 0)
    state = play(state, 1, "2D", 0)
    state = pass_(state, 1)
    state = play(state, 2, "AH", 1)
    state = play(state, 2, "2H", 1)
    state = pass_(state, 2)
    state = pass_(state, 3)
    state = pass_(state, 0)
    assert G.outcome(state) is None  # seat 1 has not passed since seat 2's plays
    state = pass_(state, 1)
    assert G.outcome(state) == {"winner": None, "deadlock": True, "counts": [13, 11, 11, 13]}


def test_a_play_resets_the_pass_count() -> None:
    state = deal({1: ["5S"], 2: ["9H"], 3: ["AD", "KD"], 0: ["2C"]})
    state = pass_(state, 1)
    state = pass_(state, 2)
    assert G.table_view(state, None)["passes"] == 2
    state = play(state, 3, "AD", 0)
    assert G.table_view(state, None)["passes"] == 0
    state = pass_(state, 3)
    # 2♣ now fits on the ace: seat 0 must play it.
    assert G.legal_actions(state, 0) == [{"type": "play", "card": "2C", "foundation": 0}]


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_first_circle_deadlock_counts_follow_the_uneven_deal(seats: int) -> None:
    no_aces = [c for c in full_deck() if c[0] != "A"]
    state = deal({s: [no_aces[s]] for s in range(seats)}, seats=seats, dealer=0)
    for i in range(seats):
        state = pass_(state, (1 + i) % seats)
    outcome = G.outcome(state)
    assert outcome is not None
    sizes = [len(h) for h in deal_round_robin(list(full_deck()), seats, 0)]
    # Extra cards go to the dealer's left first, so the smallest count is always shared.
    assert outcome == {"winner": None, "deadlock": True, "counts": sizes}


# -- checking actions ---------------------------------------------------------------


def test_acting_out_of_turn_is_refused() -> None:
    state = deal({1: ["5S"], 2: ["AH"]})
    error = refused(state, 2, {"type": "play", "card": "AH", "foundation": 0})
    assert error.reason == "it is seat 1's turn, not seat 2's"
    assert error.field == "seat"


def test_card_codes_are_canonicalised() -> None:
    state = deal({1: ["TH"], 2: ["AS"]})
    state = pass_(state, 1)
    events = G.decide(state, 2, {"type": "play", "card": "as", "foundation": 3})
    assert events[0]["action"] == {"type": "play", "card": "AS", "foundation": 3}
    state = G.evolve(state, events[0])
    assert G.table_view(state, None)["foundations"][3] == {"top": "AS", "size": 1}


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"type": "draw"}, "type"),
        ({"type": "pass", "card": "AS"}, "card"),
        ({"type": "play", "card": "AS"}, "foundation"),
        ({"type": "play", "foundation": 0}, "card"),
        ({"type": "play", "card": "ZZ", "foundation": 0}, "card"),
        ({"type": "play", "card": "AH", "foundation": 0}, "card"),
        ({"type": "play", "card": "AS", "foundation": "0"}, "foundation"),
        ({"type": "play", "card": "AS", "foundation": True}, "foundation"),
        ({"type": "play", "card": "AS", "foundation": 4}, "foundation"),
        ({"type": "play", "card": "AS", "foundation": -1}, "foundation"),
        ({"type": "play", "card": "AS", "foundation": 0, "note": "x"}, "note"),
    ],
)
def test_malformed_actions_are_refused(action: dict[str, Any], field: str) -> None:
    state = deal({1: ["AS"]})
    error = refused(state, 1, action)
    assert error.field == field
    assert error.reason


def test_chance_moves_are_refused() -> None:
    state = deal({1: ["AS"]})
    with pytest.raises(IllegalAction, match="no chance"):
        G.decide(state, 1, {"type": "pass"}, chance=True)
    assert G.chance_outcomes(state) is None


# -- views -----------------------------------------------------------------------------


def test_the_view_shows_no_face_down_card_even_to_its_owner() -> None:
    state = deal({1: ["AS", "2C", "9H"], 2: ["5S"], 3: ["6S"], 0: ["7S"]})
    state = play(state, 1, "AS", 0)
    face_down = {c for stack in G.hidden(state)["stacks"] for c in stack}
    spectator = G.table_view(state, None)
    for seat in (None, 0, 1, 2, 3):
        table = G.table_view(state, seat)
        assert table == spectator
        text = json.dumps(G.view(state, seat))
        assert not any(f'"{c}"' in text for c in face_down)
    assert spectator == {
        "seats": 4,
        "dealer": 0,
        "turn": 1,
        "passes": 0,
        "face_up": ["7S", "2C", "5S", "6S"],
        "stack_sizes": [12, 11, 12, 12],
        "foundations": [
            {"top": "AS", "size": 1},
            {"top": None, "size": 0},
            {"top": None, "size": 0},
            {"top": None, "size": 0},
        ],
    }
    assert G.hidden(state)["stacks"][1][-1] == "9H"  # the next card to turn is last
    full = G.full_view(state)
    assert full["hidden"] == G.hidden(state)
    view = G.view(state, 1)
    assert view["legal_actions"] == [{"type": "play", "card": "2C", "foundation": 0}]
    assert G.view(state, 2)["legal_actions"] == []


# -- properties over random games -------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 7))
def test_random_games_conserve_cards_and_list_exactly_the_legal_actions(seats: int) -> None:
    rng = random.Random(seats)
    every_play = [
        {"type": "play", "card": c, "foundation": k} for c in full_deck() for k in range(4)
    ]
    for _ in range(40):
        played = play_random(G, new_deal(G, seats, rng), rng)
        state = G.fold(played.events[:1])
        deck = sorted(played.events[0]["deck"])
        for event in played.events[1:]:
            assert sorted(G.cards(state)) == deck
            for seat in range(seats):
                legal = G.legal_actions(state, seat)
                assert legal == sorted_actions(legal)
                if seat not in G.to_act(state):
                    assert legal == []
                    continue
                assert G.timeout_action(state, seat, rng) in legal
                up = G.table_view(state, seat)["face_up"][seat]
                candidates = [PASS] + [a for a in every_play if a["card"] == up]
                accepted = []
                for action in candidates:
                    try:
                        G.decide(state, seat, action)
                    except IllegalAction:
                        continue
                    accepted.append(action)
                assert sorted_actions(accepted) == legal
            state = G.evolve(state, event)
        assert sorted(G.cards(state)) == deck
        assert state == played.state
        assert G.outcome(state) is not None


def test_heuristic_bots_play_legal_games_to_the_end() -> None:
    rng = random.Random(7)
    outcomes = []
    for seats in range(2, 7):
        bots = [make_bot("give_away", "heuristic") for _ in range(seats)]
        for _ in range(30):
            played = play_bots(G, new_deal(G, seats, rng), bots, rng)
            outcomes.append(G.outcome(played.state))
    assert all(o is not None for o in outcomes)


def test_heuristic_bot_plays_the_lowest_fitting_slot_and_passes_when_stuck() -> None:
    bot = make_bot("give_away", "heuristic")
    assert bot.level == "heuristic"
    state = deal({1: ["AS", "AH", "2C", "9D"]})
    state = play(state, 1, "AS", 2)
    state = play(state, 1, "AH", 1)
    assert bot.choose(G.view(state, 1), random.Random(0)) == {
        "type": "play",
        "card": "2C",
        "foundation": 1,
    }
    assert bot.choose(G.view(state, 2), random.Random(0)) is None
    state = play(state, 1, "2C", 1)
    assert bot.choose(G.view(state, 1), random.Random(0)) == PASS
