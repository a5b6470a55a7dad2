"""Give & Take: seed 004 and CONVENTIONS.md (deal, exchange, duets, ties, running out, places)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.bots import make_bot
from engine.cards import full_deck
from engine.contract import IllegalAction, sorted_actions
from engine.games.give_and_take import GAME, GiveAndTakeState
from engine.play import new_deal, play_bots, play_random
from engine.registry import get_game
from engine.series import SeriesFormat

G = GAME
LEFT, RIGHT = "left", "right"
Piles = Mapping[tuple[int, str], Sequence[str]]


# -- building positions ----------------------------------------------------------------


def layout_deck(
    seats: int, piles: Piles, reserve: Sequence[str] = (), dealer: int = 0
) -> list[str]:
    """A deck whose deal gives, *after the exchange*, seat s's pile the cards ``piles[(s, side)]``.

    The cards are listed from the top (the first is turned in round 1).  The rest
    of every pile is filled beneath with unused cards in full-deck order, then
    the reserve (top first) with ``reserve`` and whatever is left.
    """
    k = 52 // (2 * seats)
    named = [c for cards in piles.values() for c in cards] + list(reserve)
    assert len(set(named)) == len(named), "a card is named twice"
    rest = [c for c in full_deck() if c not in set(named)]
    deck: list[str | None] = [None] * 52
    for s in range(seats):
        for side in (LEFT, RIGHT):
            top_first = list(piles.get((s, side), ()))
            assert len(top_first) <= k
            fill = k - len(top_first)
            top_first += rest[:fill]
            rest = rest[fill:]
            # The exchange: s's left pile was dealt as s+1's right pile, s's right
            # pile as s-1's left pile.
            owner, dealt_side = ((s + 1) % seats, 1) if side == LEFT else ((s - 1) % seats, 0)
            position = (owner - dealer - 1) % seats
            for j, card in enumerate(reversed(top_first)):  # bottom first
                deck[j * 2 * seats + 2 * position + dealt_side] = card
    tail = list(reserve) + rest
    deck[2 * seats * k :] = tail
    cards = [c for c in deck if c is not None]
    assert len(cards) == 52 and sorted(cards) == sorted(full_deck())
    return cards


def planned_piles(seats: int, plan: Sequence[int | str]) -> dict[tuple[int, str], list[str]]:
    """Pile tops (no aces) making each round of ``plan`` a capture by that seat or a ``"tie"``.

    A capturer's right duet is a pair (difference 0) and every other duet holds
    two different ranks; in a tie the duets of seats 0 and 1 are both pairs.
    """
    by_rank: dict[str, list[str]] = {}
    for card in full_deck():
        if card[0] != "A":
            by_rank.setdefault(card[0], []).append(card)
    zero: list[tuple[int, int]] = []  # (round, seat) of duets that are pairs
    other: list[tuple[int, int]] = []
    for r, entry in enumerate(plan):
        pairs = {entry} if isinstance(entry, int) else {0, 1}
        for s in range(seats):
            (zero if s in pairs else other).append((r, s))
    cards: dict[tuple[int, int], tuple[str, str]] = {}
    for key in zero:
        rank = max(by_rank, key=lambda x: len(by_rank[x]))
        assert len(by_rank[rank]) >= 2
        cards[key] = (by_rank[rank].pop(), by_rank[rank].pop())
    for key in other:
        a, b = sorted(by_rank, key=lambda x: -len(by_rank[x]))[:2]
        assert by_rank[a] and by_rank[b]
        cards[key] = (by_rank[a].pop(), by_rank[b].pop())
    piles: dict[tuple[int, str], list[str]] = {}
    for r in range(len(plan)):
        for s in range(seats):
            right, left = cards[(r, s)]
            piles.setdefault((s, RIGHT), []).append(right)
            piles.setdefault(((s - 1) % seats, LEFT), []).append(left)
    return piles


def deal(
    seats: int, piles: Piles, reserve: Sequence[str] = (), dealer: int = 0
) -> GiveAndTakeState:
    state: GiveAndTakeState = G.fold(
        G.deal(seats, dealer, layout_deck(seats, piles, reserve, dealer))
    )
    return state


def act(state: GiveAndTakeState, seat: int, action: dict[str, Any]) -> GiveAndTakeState:
    events = G.decide(state, seat, action)
    assert len(events) == 1 and events[0]["action"] == action
    new: GiveAndTakeState = G.evolve(state, events[0])
    return new


def declare(state: GiveAndTakeState, seat: int, pile: str, value: int) -> GiveAndTakeState:
    return act(state, seat, {"type": "declare_ace", "pile": pile, "value": value})


def place(state: GiveAndTakeState, seat: int, pile: str) -> GiveAndTakeState:
    return act(state, seat, {"type": "place_capture", "pile": pile})


def differences(state: GiveAndTakeState) -> dict[int, int]:
    return {d["seat"]: d["difference"] for d in G.view(state, None)["duets"]}


def cards_in(value: Any) -> set[str]:
    text = json.dumps(value)
    return {c for c in full_deck() if f'"{c}"' in text}


# -- metadata -------------------------------------------------------------------------


def test_metadata_and_registration() -> None:
    assert get_game("give_and_take") is G
    assert (G.min_seats, G.max_seats) == (2, 4)
    assert sorted(G.deck) == sorted(full_deck())
    assert G.chance is False and G.simultaneous is True
    assert G.default_series == SeriesFormat("place_points", 3)
    assert G.default_series.place_points(4) == (3.0, 2.0, 1.0, 0.0)


# -- deal, reserve and exchange ---------------------------------------------------------


@pytest.mark.parametrize(("seats", "size", "reserve"), [(2, 13, 0), (3, 8, 4), (4, 6, 4)])
@pytest.mark.parametrize("dealer", [0, 1])
def test_the_deal_and_the_exchange_of_piles_between_neighbours(
    seats: int, size: int, reserve: int, dealer: int
) -> None:
    deck = list(full_deck())
    random.Random(seats * 10 + dealer).shuffle(deck)
    # As dealt: clockwise from dealer+1, one card on the left pile then one on the right.
    dealt: dict[tuple[int, int], list[str]] = {
        (s, side): [] for s in range(seats) for side in (0, 1)
    }
    for i in range(2 * seats * size):
        dealt[((dealer + 1 + i // 2) % seats, i % 2)].append(deck[i])  # bottom first
    state: GiveAndTakeState = G.fold(G.deal(seats, dealer, deck))
    assert state.reserve == tuple(deck[2 * seats * size :]) and len(state.reserve) == reserve
    for s in range(seats):
        # Round 1 is already turned: face-down part plus the turned cards, newest on top.
        left = list(state.down[2 * s]) + list(reversed(state.up[2 * s]))
        right = list(state.down[2 * s + 1]) + list(reversed(state.up[2 * s + 1]))
        assert left == dealt[((s + 1) % seats, 1)], "left pile: the left neighbour's right pile"
        assert right == dealt[((s - 1) % seats, 0)], "right pile: the right neighbour's left pile"
        assert len(left) == len(right) == size


def test_with_two_players_both_piles_change_hands() -> None:
    deck = list(full_deck())
    state: GiveAndTakeState = G.fold(G.deal(2, 0, deck))
    # Dealer 0: deck[0] and deck[1] start seat 1's left and right piles, deck[2] and
    # deck[3] seat 0's.  Both boundaries swap, so each seat plays the other's cards.
    assert state.down[0][0] == deck[1]  # seat 0 left: seat 1's dealt right pile
    assert state.down[1][0] == deck[0]  # seat 0 right: seat 1's dealt left pile
    assert state.down[2][0] == deck[3]  # seat 1 left: seat 0's dealt right pile
    assert state.down[3][0] == deck[2]  # seat 1 right: seat 0's dealt left pile


# -- the seed's examples ---------------------------------------------------------------


def test_seed_two_player_example_elena_captures_with_7_5_against_k_3() -> None:
    # Elena is seat 0, Sergei seat 1.  Elena's right duet: her right pile and Sergei's
    # left pile; Sergei's right duet: his right pile and Elena's left pile.
    state = deal(2, {(0, RIGHT): ["7S"], (1, LEFT): ["5D"], (1, RIGHT): ["KC"], (0, LEFT): ["3H"]})
    assert state.round == 1 and state.phase == "place"
    assert differences(state) == {0: 2, 1: 10}
    assert state.capturer == 0
    assert G.waiting_for(state) == G.to_act(state) == [0]
    assert G.legal_actions(state, 0) == sorted_actions(
        [{"type": "place_capture", "pile": LEFT}, {"type": "place_capture", "pile": RIGHT}]
    )
    assert G.legal_actions(state, 1) == []
    view = G.view(state, 1)
    assert view["capturer"] == 0
    duets = {d["seat"]: d for d in view["duets"]}
    assert duets[0]["cards"] == ["7S", "5D"] and duets[1]["cards"] == ["KC", "3H"]
    assert sorted(view["captured"]) == sorted(["7S", "5D", "KC", "3H"])
    packet = view["captured"]
    after = place(state, 0, RIGHT)
    # Under Elena's right pile, first gathered card nearest the top; round 2 follows at once.
    assert after.down[1][:4] == tuple(reversed(packet))
    assert packet == ["3H", "7S", "5D", "KC"]
    assert after.round >= 2


def test_seed_four_player_example_andrei_captures_with_8_7() -> None:
    # Andrei 0 (8-7=1), Sergei 1 (9-3=6), Olga 2 (7-2=5), Elena 3 (K-10=3).
    # Seat s's right duet: s's right pile against s-1's left pile.
    piles = {
        (0, RIGHT): ["8S"],
        (3, LEFT): ["7S"],
        (1, RIGHT): ["9S"],
        (0, LEFT): ["3S"],
        (2, RIGHT): ["7H"],
        (1, LEFT): ["2S"],
        (3, RIGHT): ["KS"],
        (2, LEFT): ["TS"],
    }
    state = deal(4, piles, reserve=["AS", "AH", "AD", "AC"])
    assert differences(state) == {0: 1, 1: 6, 2: 5, 3: 3}
    assert state.capturer == 0
    # Gathered clockwise from the capturer, left pile before right pile.
    view = G.view(state, 2)
    assert view["captured"] == ["3S", "8S", "2S", "9S", "TS", "7H", "7S", "KS"]
    after = place(state, 0, LEFT)
    packet = view["captured"]
    assert after.down[0][: len(packet)] == tuple(reversed(packet)), "packet under the left pile"
    assert sorted(G.cards(after)) == sorted(full_deck())


# -- ties, aces ---------------------------------------------------------------------


def test_a_tie_stays_face_up_and_the_next_capture_takes_it_in_gathering_order() -> None:
    piles = {
        (0, RIGHT): ["5S", "4S"],
        (1, LEFT): ["7S", "4H"],  # round 1: 5-7 = 2; round 2: 4-4 = 0
        (1, RIGHT): ["9S", "2S"],
        (0, LEFT): ["7H", "9H"],  # round 1: 9-7 = 2 (tie); round 2: 2-9 = 7
    }
    state = deal(2, piles)
    # Round 1 tied and needed nobody: round 2 was turned at once.
    assert state.round == 2 and state.phase == "place" and state.capturer == 0
    assert state.up == (("7H", "9H"), ("5S", "4S"), ("7S", "4H"), ("9S", "2S"))
    view = G.view(state, 1)
    assert view["piles"][0]["left"]["up"] == ["7H", "9H"]
    packet = ["7H", "9H", "5S", "4S", "7S", "4H", "9S", "2S"]
    assert view["captured"] == packet
    before = len(state.down[0])
    after = place(state, 0, LEFT)
    # The first gathered card is nearest the top of the packet, under the left pile.
    assert after.down[0][:8] == tuple(reversed(packet))
    assert len(after.down[0]) + len(after.up[0]) == before + 8
    assert all(after.up[i][:-1] == () for i in range(4)), "the old face-up cards are gone"


def test_a_tie_is_shown_in_the_view_with_its_cards_still_on_the_table() -> None:
    piles = {
        (0, RIGHT): ["5S", "AS"],
        (1, LEFT): ["7S", "4H"],
        (1, RIGHT): ["9S", "2S"],
        (0, LEFT): ["7H", "9H"],
    }
    state = deal(2, piles)
    assert state.round == 2 and state.phase == "declare"
    view = G.view(state, 1)
    assert view["duets_round"] == 1
    assert {d["seat"]: d["difference"] for d in view["duets"]} == {0: 2, 1: 2}
    assert view["duets"][0]["cards"] == ["5S", "7S"]


@pytest.mark.parametrize(("value", "capturer", "difference"), [(1, 0, 1), (14, 1, 12)])
def test_an_ace_declared_1_or_14_decides_the_capture(
    value: int, capturer: int, difference: int
) -> None:
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["2H"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    assert state.phase == "declare" and state.pending == (1,)
    assert G.waiting_for(state) == G.to_act(state) == [0]
    assert G.legal_actions(state, 0) == sorted_actions(
        [{"type": "declare_ace", "pile": RIGHT, "value": v} for v in (1, 14)]
    )
    assert G.legal_actions(state, 1) == []
    after = declare(state, 0, RIGHT, value)
    assert differences(after) == {0: difference, 1: 5}
    assert after.capturer == capturer
    assert G.view(after, 1)["piles"][0]["right"]["declared"] == value


def test_declarations_arrive_in_any_order_and_the_round_waits_for_the_last() -> None:
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["AH"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    assert G.waiting_for(state) == [0, 1]
    a = declare(declare(state, 0, RIGHT, 1), 1, LEFT, 1)
    b = declare(declare(state, 1, LEFT, 1), 0, RIGHT, 1)
    assert a == b and a.capturer == 0 and differences(a) == {0: 0, 1: 5}
    half = declare(state, 1, LEFT, 14)
    assert G.waiting_for(half) == [0] and half.phase == "declare"
    # Seat 1's value stays secret from seat 0 until every declaration is in.
    assert G.view(half, 0)["piles"][1]["left"]["declared"] is None
    assert G.view(half, 1)["piles"][1]["left"]["declared"] == 14
    c = declare(half, 0, RIGHT, 1)
    assert differences(c) == {0: 13, 1: 5} and c.capturer == 1


def test_the_view_never_shows_another_seats_new_card_before_all_declarations() -> None:
    # Round 1 ties (its cards stay visible); in round 2 seat 0 turns an ace on its left pile.
    plan = planned_piles(3, ["tie", "tie"])
    plan[(0, LEFT)][1] = "AS"
    state = deal(3, plan, reserve=["AH", "AD", "AC"])
    assert state.round == 2 and state.phase == "declare" and G.waiting_for(state) == [0]
    new = {s: {state.up[2 * s][-1], state.up[2 * s + 1][-1]} for s in range(3)}
    old = {c for i in range(6) for c in state.up[i][:-1]}
    assert len(old) == 6
    for viewer in (None, 0, 1, 2):
        view = G.view(state, viewer)
        shown = cards_in(view)
        assert old <= shown, "the older face-up cards stay visible"
        for s, cards in new.items():
            if s == viewer:
                assert cards <= shown
            else:
                assert not cards & shown, (viewer, s)
                assert view["piles"][s]["left"]["up"][-1] is None
                assert view["piles"][s]["right"]["up"][-1] is None
        assert view["pending"] == [0]
        assert view["my_pending"] == ([LEFT] if viewer == 0 else [])
    assert G.view(state, 0)["piles"][0]["left"]["up"][-1] == "AS"
    # Once the last declaration is in, the round is revealed to everyone.
    after = declare(state, 0, LEFT, 14)
    assert after.round > 2 or after.phase == "place"
    if after.phase == "place":
        assert set().union(*new.values()) <= cards_in(G.view(after, None))


def test_the_view_hides_new_cards_of_others_while_two_seats_declare() -> None:
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["AH"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    assert cards_in(G.view(state, 0)) == {"AS", "4D"}
    assert cards_in(G.view(state, 1)) == {"AH", "9C"}
    assert cards_in(G.view(state, None)) == set()
    hidden = G.hidden(state)
    assert hidden["seat:0"]["unrevealed"] == ["4D", "AS"]
    assert hidden["seat:1"]["unrevealed"] == ["AH", "9C"]


# -- running out and the places ----------------------------------------------------------


def play_plan(state: GiveAndTakeState, placements: Sequence[tuple[int, str]]) -> GiveAndTakeState:
    for seat, pile in placements:
        assert state.phase == "place" and state.capturer == seat, (state.round, state.capturer)
        state = place(state, seat, pile)
    return state


ACES = ["AS", "AH", "AD", "AC"]


def test_a_lone_player_out_on_one_pile_takes_the_reserve() -> None:
    plan: list[int | str] = [0, 1, 1, 2, 2, "tie", "tie", "tie"]
    state = deal(3, planned_piles(3, plan), reserve=ACES)
    state = play_plan(state, [(0, LEFT), (1, LEFT), (1, RIGHT), (2, LEFT), (2, RIGHT)])
    # Round 9: seat 0's right pile had run out; it took the whole reserve, order kept.
    assert state.round == 9 and state.reserve == () and state.reserve_taker == 0
    assert state.active == (0, 1, 2) and state.out == ()
    assert state.up[1][-1] == "AS", "the reserve's top card is turned first"
    assert G.hidden(state)["piles"][0]["right"] == ["AH", "AD", "AC"]
    assert state.phase == "declare" and G.waiting_for(state) == [0]
    view = G.view(state, 1)
    assert view["reserve"] == 0 and view["reserve_taker"] == 0
    assert view["piles"][0]["right"]["down"] == 3
    assert sorted(G.cards(state)) == sorted(full_deck())


def test_two_players_running_out_together_both_go_out_even_with_a_reserve() -> None:
    plan: list[int | str] = [0, 0, 1, "tie", "tie", "tie", "tie", "tie"]
    state = deal(3, planned_piles(3, plan), reserve=ACES)
    state = play_plan(state, [(0, LEFT), (0, RIGHT), (1, LEFT)])
    # Round 9: seat 1 (right pile) and seat 2 (both) ran out: both out, reserve untouched.
    # Seat 1 held 6 face-down + 10 face-up, seat 2 held 10: seat 1 ranks higher.
    # Seat 0 is left alone in the game and loses.
    assert state.phase == "over"
    assert state.out == ((1, 2),)
    assert len(state.reserve) == 4
    assert G.outcome(state) == {"places": [[1], [2], [0]]}
    assert sorted(G.cards(state)) == sorted(full_deck())
    view = G.view(state, 0)
    assert view["out"] == [[1, 2]] and view["active"] == [0]
    assert [view["piles"][s]["cards"] for s in (1, 2)] == [16, 10]
    with pytest.raises(IllegalAction, match="over"):
        G.decide(state, 0, {"type": "place_capture", "pile": LEFT})


def test_all_remaining_players_going_out_together_are_ranked_by_cards() -> None:
    plan: list[int | str] = [0, "tie", "tie", "tie", "tie", "tie", "tie", "tie"]
    state = deal(3, planned_piles(3, plan), reserve=ACES)
    state = play_plan(state, [(0, LEFT)])
    # Round 9: everyone ran out at once.  Seat 0 holds 6 face-down + 14 face-up = 20,
    # seats 1 and 2 hold 14 each and share second place.
    assert state.phase == "over"
    assert G.outcome(state) == {"places": [[0], [1, 2]]}
    assert state.out == ((0, 1, 2),)
    assert G.waiting_for(state) == G.to_act(state) == []
    assert all(G.legal_actions(state, s) == [] for s in range(3))


def test_everyone_out_with_equal_cards_share_first_place() -> None:
    state = deal(3, planned_piles(3, ["tie"] * 8), reserve=ACES)
    # Eight ties need nobody to act; at round 9 all three run out with 16 cards each.
    assert state.phase == "over" and state.round == 8
    assert G.outcome(state) == {"places": [[0, 1, 2]]}


def test_players_out_leave_and_their_neighbours_close_up() -> None:
    plan: list[int | str] = [0, 0, 2, 2, "tie", "tie"]
    state = deal(4, planned_piles(4, plan), reserve=ACES)
    state = play_plan(state, [(0, LEFT), (0, RIGHT), (2, LEFT), (2, RIGHT)])
    # Round 7: seats 1 and 3 ran out (4 face-up cards each): out together, sharing.
    assert state.out == ((1, 3),) and state.active == (0, 2)
    assert state.places == ((1, 3),)
    assert state.round >= 7
    view = G.view(state, 0)
    assert {(d["seat"], d["neighbour"]) for d in view["duets"]} == {(0, 2), (2, 0)}
    assert view["piles"][1]["active"] is False and view["piles"][1]["cards"] == 4
    assert view["piles"][1]["left"] == {"down": 0, "up": [], "declared": None}
    assert len(G.hidden(state)["out_of_play"][1]) == 4
    assert sorted(G.cards(state)) == sorted(full_deck())
    for seat in (1, 3):
        with pytest.raises(IllegalAction):
            G.decide(state, seat, {"type": "place_capture", "pile": LEFT})


def test_with_two_players_the_first_to_run_out_wins_and_the_other_loses() -> None:
    rng = random.Random(4)
    for _ in range(30):
        played = play_random(G, new_deal(G, 2, rng), rng)
        outcome = G.outcome(played.state)
        assert outcome is not None
        places = outcome["places"]
        assert sorted(s for group in places for s in group) == [0, 1]
        if len(places) == 2:
            first, last = places
            assert played.state.out[0] == tuple(first) and played.state.active == tuple(last)


# -- actions refused, timeouts -------------------------------------------------------------


def test_illegal_actions_are_refused_with_reasons() -> None:
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["2H"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    cases: list[tuple[int, dict[str, Any], str, str | None]] = [
        (1, {"type": "declare_ace", "pile": RIGHT, "value": 1}, "no ace to declare", "pile"),
        (0, {"type": "declare_ace", "pile": LEFT, "value": 1}, "right pile", "pile"),
        (0, {"type": "declare_ace", "pile": RIGHT, "value": 7}, "1 or 14", "value"),
        (0, {"type": "declare_ace", "pile": RIGHT, "value": True}, "1 or 14", "value"),
        (0, {"type": "declare_ace", "pile": "middle", "value": 1}, "left", "pile"),
        (0, {"type": "declare_ace", "pile": ["x"], "value": 1}, "left", "pile"),
        (0, {"type": "declare_ace", "pile": RIGHT, "value": 1, "x": 1}, "unexpected", "x"),
        (0, {"type": "place_capture", "pile": LEFT}, "no capture", "type"),
        (0, {"type": "pass"}, "unknown action", "type"),
    ]
    for seat, action, reason, field in cases:
        with pytest.raises(IllegalAction, match=reason) as error:
            G.decide(state, seat, action)
        assert error.value.field == field, action
    with pytest.raises(IllegalAction, match="chance"):
        G.decide(state, 0, {"type": "declare_ace", "pile": RIGHT, "value": 1}, chance=True)
    captured = declare(state, 0, RIGHT, 1)
    with pytest.raises(IllegalAction, match="seat 0 captured"):
        G.decide(captured, 1, {"type": "place_capture", "pile": LEFT})
    with pytest.raises(IllegalAction, match="no ace"):
        G.decide(captured, 0, {"type": "declare_ace", "pile": RIGHT, "value": 1})


def test_timeouts_declare_14_and_place_under_the_pile_with_more_face_down_cards() -> None:
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["AH"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    rng = random.Random(0)
    assert G.timeout_action(state, 0, rng) == {"type": "declare_ace", "pile": RIGHT, "value": 14}
    assert G.timeout_action(state, 1, rng) == {"type": "declare_ace", "pile": LEFT, "value": 14}
    # Equal face-down piles: left.
    equal = deal(2, {(0, RIGHT): ["7S"], (1, LEFT): ["5D"], (1, RIGHT): ["KC"], (0, LEFT): ["3H"]})
    assert G.timeout_action(equal, 0, rng) == {"type": "place_capture", "pile": LEFT}
    # After a capture under the right pile, the right pile holds more: it gets the next.
    plan = planned_piles(3, [0, 0])
    state3 = place(deal(3, plan, reserve=ACES), 0, RIGHT)
    assert state3.capturer == 0
    assert G.timeout_action(state3, 0, rng) == {"type": "place_capture", "pile": RIGHT}
    with pytest.raises(ValueError):
        G.timeout_action(state3, 1, rng)


# -- whole games and bots ------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_and_heuristic_games_end_with_every_seat_placed(seats: int) -> None:
    rng = random.Random(seats)
    bots = [make_bot(G.id, "heuristic") for _ in range(seats)]
    for _ in range(20):
        for played in (
            play_random(G, new_deal(G, seats, rng), rng),
            play_bots(G, new_deal(G, seats, rng), bots, rng),
        ):
            outcome = G.outcome(played.state)
            assert outcome is not None
            assert sorted(s for g in outcome["places"] for s in g) == list(range(seats))
            assert sorted(G.cards(played.state)) == sorted(full_deck())
            assert G.fold(played.events) == played.state


def test_the_heuristic_bot_beats_random_players() -> None:
    rng = random.Random(11)
    heuristic = make_bot(G.id, "heuristic")
    random_bot = make_bot(G.id, "random")
    wins = 0
    for _ in range(100):
        played = play_bots(G, new_deal(G, 2, rng), [heuristic, random_bot], rng)
        outcome = G.outcome(played.state)
        assert outcome is not None
        wins += outcome["places"][0] == [0]
    assert wins >= 80


def test_the_heuristic_bot_declares_an_ace_and_places_from_its_view() -> None:
    bot = make_bot(G.id, "heuristic")
    rng = random.Random(0)
    piles = {(0, RIGHT): ["AS"], (1, LEFT): ["AH"], (1, RIGHT): ["9C"], (0, LEFT): ["4D"]}
    state = deal(2, piles)
    right = bot.choose(G.view(state, 0), rng)
    left = bot.choose(G.view(state, 1), rng)
    assert right is not None and left is not None
    assert right["pile"] == RIGHT and left["pile"] == LEFT
    G.decide(state, 0, right)
    G.decide(state, 1, left)
    assert bot.choose(G.view(state, 0), rng) is not None
    captured = declare(declare(state, 0, RIGHT, 1), 1, LEFT, 1)
    assert bot.choose(G.view(captured, 1), rng) is None
    assert bot.choose(G.view(captured, 0), rng) == {"type": "place_capture", "pile": LEFT}
