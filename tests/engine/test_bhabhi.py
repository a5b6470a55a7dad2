"""Bhabhi / Getaway (seed 003, CONVENTIONS.md): tricks, tochoo, going out, blind draw, taking."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.bots import RandomBot, make_bot
from engine.cards import deal_round_robin, full_deck
from engine.contract import IllegalAction
from engine.games.bhabhi import GAME, BhabhiState
from engine.play import new_deal, play_bots, play_random
from engine.series import SeriesFormat

# -- helpers -------------------------------------------------------------------


def deck_for(hands: Sequence[str], dealer: int) -> list[str]:
    """The deck that deals ``hands`` (space-separated codes per seat) from ``dealer``."""
    queues = [h.split() for h in hands]
    n = len(hands)
    deck = [queues[(dealer + 1 + i) % n].pop(0) for i in range(52)]
    assert deal_round_robin(deck, n, dealer) == [h.split() for h in hands]
    return deck


def dealt(hands: Sequence[str], dealer: int = 3) -> tuple[BhabhiState, list[dict[str, Any]]]:
    events = GAME.deal(len(hands), dealer, deck_for(hands, dealer))
    return GAME.fold(events), events


def act(
    state: BhabhiState,
    seat: int,
    action: Mapping[str, Any],
    chance: bool = False,
    log: list[dict[str, Any]] | None = None,
) -> BhabhiState:
    events = GAME.decide(state, seat, action, chance=chance)
    if log is not None:
        log.extend(events)
    new = state
    for event in events:
        new = GAME.evolve(new, event)
    assert sorted(GAME.cards(new)) == sorted(full_deck())
    return new


def play(
    state: BhabhiState, seat: int, card: str, log: list[dict[str, Any]] | None = None
) -> BhabhiState:
    return act(state, seat, {"type": "play", "card": card}, log=log)


def take(state: BhabhiState, seat: int) -> BhabhiState:
    return act(state, seat, {"type": "take_left"})


def hand(state: BhabhiState, seat: int) -> set[str]:
    return set(state.hands[seat])


def position(
    hands: Mapping[int, str], leader: int, seats: int = 4, trick_number: int = 6
) -> BhabhiState:
    """A position between tricks: these hands, every other card in the discard, empty seats out."""
    held = tuple(tuple(hands.get(s, "").split()) for s in range(seats))
    used = {c for h in held for c in h}
    active = tuple(bool(h) for h in held)
    return BhabhiState(
        seats=seats,
        dealer=0,
        hands=held,
        active=active,
        out=tuple((s,) for s in range(seats) if not active[s]),
        discard=tuple(c for c in full_deck() if c not in used),
        trick=(),
        trick_number=trick_number,
        leader=leader,
        turn=None,
        phase="lead",
        must_lead=None,
    )


def refused(state: BhabhiState, seat: int, action: Mapping[str, Any], chance: bool = False) -> str:
    with pytest.raises(IllegalAction) as info:
        GAME.decide(state, seat, action, chance=chance)
    return info.value.reason


# Seats 0..3 are A, B, C, D of the seed's example; the dealer is D (seat 3), so A
# gets the first card.  A holds A♠ and 8♥, B holds Q♥, C has no hearts but 3♣.
EXAMPLE = [
    "AS 2S 8H 2H 3H 2D 3D 4D 5D 2C 4C 5C 6C",
    "QS JS QH 4H 5H 6H 6D 7D 8D 7C 8C 9C TC",
    "TS 9S 3C 9D TD JD QD KD AD JC QC KC AC",
    "KS 8S 7S 6S 5S 4S 3S 7H 9H TH JH KH AH",
]

# C (seat 2) has no spades at all.
NO_SPADES = [
    "AS KS QS 2H 3H 4H 2D 3D 4D 2C 3C 4C 5C",
    "JS TS 9S 8S 5H 6H 5D 6D 7D 6C 7C 8C 9C",
    "7H 8H 9H TH 8D 9D TD JD TC JC QC KC AC",
    "7S 6S 5S 4S 3S 2S JH QH KH AH QD KD AD",
]


def after_first_trick() -> BhabhiState:
    state, _ = dealt(EXAMPLE)
    state = play(state, 0, "AS")
    state = play(state, 1, "QS")
    state = play(state, 2, "TS")
    return play(state, 3, "3S")


# -- the deal and trick 1 --------------------------------------------------------


def test_metadata() -> None:
    assert (GAME.id, GAME.min_seats, GAME.max_seats) == ("bhabhi", 3, 8)
    assert GAME.chance and GAME.simultaneous
    assert GAME.default_series == SeriesFormat("losses", 5)
    assert len(GAME.deck) == 52


def test_all_cards_are_dealt_and_the_ace_of_spades_holder_leads() -> None:
    for seats in range(3, 9):
        state = GAME.fold(new_deal(GAME, seats, random.Random(seats)))
        assert sum(len(h) for h in state.hands) == 52
        assert "AS" in state.hands[state.leader]
        assert GAME.waiting_for(state) == [state.leader]
        assert GAME.to_act(state) == list(range(seats))


def test_the_first_trick_must_be_led_with_the_ace_of_spades() -> None:
    state, _ = dealt(EXAMPLE)
    assert state.leader == 0
    assert GAME.legal_actions(state, 0) == [
        {"type": "play", "card": "AS"},
        {"type": "take_left"},
    ]
    assert (
        refused(state, 0, {"type": "play", "card": "2S"}) == "you must lead AS to the first trick"
    )


def test_the_first_trick_needs_a_spade_from_whoever_has_one() -> None:
    state, _ = dealt(EXAMPLE)
    state = play(state, 0, "AS")
    assert refused(state, 1, {"type": "play", "card": "QH"}) == (
        "you must play a spade to the first trick: you hold JS, QS"
    )
    assert [a["card"] for a in GAME.legal_actions(state, 1)] == ["JS", "QS"]


def test_the_first_trick_with_spades_goes_to_the_discard_and_the_ace_leads_again() -> None:
    state = after_first_trick()
    assert state.phase == "lead"
    assert state.leader == 0
    assert state.trick == ()
    assert sorted(state.discard) == ["3S", "AS", "QS", "TS"]
    assert [len(h) for h in state.hands] == [12, 12, 12, 12]
    assert state.must_lead is None
    # Trick 2 is led with any card.
    assert len([a for a in GAME.legal_actions(state, 0) if a["type"] == "play"]) == 12


def test_the_first_trick_without_spades_takes_any_card_and_goes_on() -> None:
    state, _ = dealt(NO_SPADES)
    state = play(state, 0, "AS")
    state = play(state, 1, "8S")
    # C has no spade: any card, and the trick does not stop.
    assert len(GAME.legal_actions(state, 2)) == 13
    state = play(state, 2, "AC")
    assert state.phase == "trick"
    assert state.turn == 3
    state = play(state, 3, "2S")
    assert state.phase == "lead"
    assert state.leader == 0
    assert sorted(state.discard) == ["2S", "8S", "AC", "AS"]
    assert all(len(h) == 12 for h in state.hands)


# -- later tricks -------------------------------------------------------------------


def test_seed_example_tochoo_stops_the_trick_and_the_highest_heart_picks_up() -> None:
    state = after_first_trick()
    state = play(state, 0, "8H")
    state = play(state, 1, "QH")
    state = play(state, 2, "3C")  # C has no hearts: a tochoo
    # D does not play; B picks up 8♥ Q♥ 3♣ and leads.
    assert state.phase == "lead"
    assert state.leader == 1
    assert GAME.waiting_for(state) == [1]
    assert {"8H", "QH", "3C"} <= hand(state, 1)
    assert len(state.hands[1]) == 12 - 1 + 3
    assert len(state.hands[3]) == 12
    assert "3C" not in hand(state, 2)
    assert len(state.discard) == 4
    assert refused(state, 3, {"type": "play", "card": "7H"}) == "it is seat 1's lead, not seat 3's"


def test_a_clean_trick_goes_to_the_discard_and_its_highest_card_leads() -> None:
    state = after_first_trick()
    state = play(state, 0, "2S")
    state = play(state, 1, "JS")
    state = play(state, 2, "9S")
    state = play(state, 3, "KS")
    assert state.phase == "lead"
    assert state.leader == 3
    assert sorted(state.discard) == sorted(["3S", "AS", "QS", "TS", "2S", "JS", "9S", "KS"])
    assert [len(h) for h in state.hands] == [11, 11, 11, 11]


def test_following_suit_is_required_but_not_beating() -> None:
    state = after_first_trick()
    state = play(state, 0, "5D")
    assert refused(state, 1, {"type": "play", "card": "7C"}) == (
        "you must follow diamonds: you hold 6D, 7D, 8D"
    )
    assert [a["card"] for a in GAME.legal_actions(state, 1)] == ["6D", "7D", "8D"]
    state = play(state, 1, "6D")
    assert state.turn == 2


def test_the_highest_led_card_picks_up_even_when_it_is_not_the_last_played() -> None:
    state = after_first_trick()
    state = play(state, 0, "3D")
    state = play(state, 1, "8D")
    state = play(state, 2, "9D")
    state = play(state, 3, "7H")  # D has no diamonds
    assert state.leader == 2
    assert {"3D", "8D", "9D", "7H"} <= hand(state, 2)


def test_plays_out_of_turn_and_unknown_cards_are_refused() -> None:
    state = after_first_trick()
    assert refused(state, 1, {"type": "play", "card": "QH"}) == "it is seat 0's lead, not seat 1's"
    state = play(state, 0, "8H")
    assert refused(state, 2, {"type": "play", "card": "3C"}) == "it is seat 1's turn, not seat 2's"
    assert refused(state, 1, {"type": "play", "card": "AH"}) == "you do not hold AH"
    assert "is not a card" in refused(state, 1, {"type": "play", "card": "1H"})
    assert refused(state, 1, {"type": "play"}) == 'a play needs a "card"'
    assert "unexpected field(s) extra" in refused(
        state, 1, {"type": "play", "card": "QH", "extra": 1}
    )
    assert "unknown action type" in refused(state, 1, {"type": "pass"})


def test_cards_are_accepted_in_any_spelling_and_recorded_canonically() -> None:
    state = after_first_trick()
    events = GAME.decide(state, 0, {"type": "play", "card": "8h"})
    assert events[0]["action"] == {"type": "play", "card": "8H"}


# -- going out and the blind draw -----------------------------------------------


def test_a_last_card_that_wins_a_clean_trick_draws_blind_from_the_old_discard() -> None:
    state = position({0: "KH", 1: "2H", 2: "4H 5C", 3: "5H 6S 7S"}, leader=0)
    old_discard = sorted(state.discard)
    state = play(state, 0, "KH")
    state = play(state, 1, "2H")
    state = play(state, 2, "4H")
    state = play(state, 3, "5H")
    # Seat 1 followed with its last card and did not win: out.  Seat 0 must draw.
    assert state.phase == "draw"
    assert state.out == ((1,),)
    assert state.active == (True, False, True, True)
    assert GAME.to_act(state) == []
    assert GAME.waiting_for(state) == []
    assert GAME.legal_actions(state, 2) == []
    chance = GAME.chance_outcomes(state)
    assert chance is not None
    seat, outcomes = chance
    assert seat == 0
    # The old discard: the trick just played is not in it.
    assert outcomes == [{"type": "draw_discard", "card": c} for c in old_discard]
    assert refused(state, 0, {"type": "draw_discard", "card": "AS"}) == (
        "the blind draw from the discard is made by the server, not by a player"
    )
    assert refused(state, 0, {"type": "draw_discard", "card": "KH"}, chance=True) == (
        "KH is not in the old discard pile"
    )
    assert "must first draw" in refused(state, 2, {"type": "take_left"})
    state = act(state, 0, {"type": "draw_discard", "card": "9D"}, chance=True)
    assert state.phase == "lead"
    assert state.hands[0] == ("9D",)
    assert state.must_lead == "9D"
    assert "9D" not in state.discard
    assert {"KH", "2H", "4H", "5H"} <= set(state.discard)
    assert len(state.discard) == len(old_discard) - 1 + 4
    # The drawn card is seen by the drawer only.
    assert GAME.view(state, 0)["must_lead"] == "9D"
    assert GAME.view(state, 2)["must_lead"] is None
    assert GAME.view(state, 2)["lead_forced"] is True
    assert GAME.legal_actions(state, 0) == [{"type": "play", "card": "9D"}, {"type": "take_left"}]


def test_the_drawn_card_must_be_led() -> None:
    state = position({0: "KH", 2: "4H 5C", 3: "5H 6S 7S"}, leader=0)
    for seat, card in ((0, "KH"), (2, "4H"), (3, "5H")):
        state = play(state, seat, card)
    state = act(state, 0, {"type": "draw_discard", "card": "2C"}, chance=True)
    state = take(state, 0)  # seat 0 takes seat 2's hand: 2C must still lead
    assert hand(state, 0) == {"2C", "5C"}
    assert refused(state, 0, {"type": "play", "card": "5C"}) == (
        "you must lead 2C, the card you drew from the discard"
    )
    state = play(state, 0, "2C")
    assert state.turn == 3


def test_a_last_card_winning_a_clean_trick_loses_when_everyone_else_goes_out() -> None:
    state = position({0: "KH", 1: "2H", 2: "4H"}, leader=0)
    state = play(state, 0, "KH")
    state = play(state, 1, "2H")
    state = play(state, 2, "4H")
    assert state.phase == "over"
    assert GAME.chance_outcomes(state) is None
    assert GAME.outcome(state) == {"loser": 0, "out": [[3], [1, 2]]}


def test_a_last_card_that_loses_a_tochoo_trick_goes_out() -> None:
    state = position({0: "3H", 1: "9H 2D", 2: "5C", 3: "6H 7H"}, leader=0)
    state = play(state, 0, "3H")  # the leader's last card
    state = play(state, 1, "9H")
    state = play(state, 2, "5C")  # tochoo with the last card
    # Seat 1 picks up; seats 0 and 2 went out together; seat 3 never played.
    assert state.phase == "lead"
    assert state.leader == 1
    assert hand(state, 1) == {"2D", "3H", "9H", "5C"}
    assert state.out == ((0, 2),)
    assert state.active == (False, True, False, True)
    assert hand(state, 3) == {"6H", "7H"}


def test_a_last_card_that_follows_without_winning_goes_out() -> None:
    state = position({0: "KH 2C", 1: "2H", 2: "5H 3D", 3: "6C"}, leader=0)
    state = play(state, 0, "KH")
    state = play(state, 1, "2H")
    state = play(state, 2, "5H")
    state = play(state, 3, "6C")  # tochoo: seat 0 picks up, seats 1 and 3 are out
    assert state.out == ((1, 3),)
    assert state.leader == 0
    assert hand(state, 0) == {"2C", "KH", "2H", "5H", "6C"}


def test_the_picker_loses_when_everyone_else_went_out_with_that_trick() -> None:
    state = position({0: "9C 3D", 2: "7H"}, leader=0)
    state = play(state, 0, "9C")
    state = play(state, 2, "7H")  # seat 2's tochoo with its last card
    assert GAME.outcome(state) == {"loser": 0, "out": [[1], [3], [2]]}


def test_two_players_left_the_higher_last_card_of_a_clean_trick_loses() -> None:
    state = position({0: "5H", 2: "7H"}, leader=0)
    state = play(state, 0, "5H")
    state = play(state, 2, "7H")
    assert GAME.outcome(state) == {"loser": 2, "out": [[1], [3], [0]]}


def test_two_players_left_a_clean_trick_with_cards_left_draws() -> None:
    state = position({0: "5H 9C", 2: "7H"}, leader=0)
    state = play(state, 0, "5H")
    state = play(state, 2, "7H")
    assert state.phase == "draw"
    assert GAME.chance_outcomes(state) is not None
    assert GAME.chance_outcomes(state)[0] == 2  # type: ignore[index]


def test_two_players_left_taking_the_hand_loses_at_once() -> None:
    state = position({0: "5H 9C", 2: "7H"}, leader=0)
    assert GAME.to_act(state) == [0, 2]
    state = take(state, 2)
    assert hand(state, 2) == {"5H", "7H", "9C"}
    assert GAME.outcome(state) == {"loser": 2, "out": [[1], [3], [0]]}


# -- taking the left hand ----------------------------------------------------------


def test_taking_the_left_hand_between_tricks() -> None:
    state = after_first_trick()
    before = hand(state, 2) | hand(state, 3)
    assert GAME.to_act(state) == [0, 1, 2, 3]
    assert GAME.waiting_for(state) == [0]
    assert GAME.legal_actions(state, 2) == [{"type": "take_left"}]
    state = take(state, 2)
    assert hand(state, 2) == before
    assert state.hands[3] == ()
    assert state.out == ((3,),)
    assert state.leader == 0
    assert GAME.to_act(state) == [0, 1, 2]
    # Seat 3 is out: it may not act.
    assert refused(state, 3, {"type": "take_left"}) == "you are out of the game"
    # The trick now goes 0, 1, 2 and back.
    state = play(state, 0, "2C")
    state = play(state, 1, "7C")
    assert state.turn == 2


def test_taking_the_leaders_hand_passes_the_lead_to_the_taker() -> None:
    state = after_first_trick()
    state = take(state, 3)  # seat 3's left neighbour is seat 0, the leader
    assert state.leader == 3
    assert state.out == ((0,),)
    assert GAME.waiting_for(state) == [3]
    assert len(state.hands[3]) == 24


def test_taking_the_ace_of_spades_before_trick_1_makes_the_taker_lead_it() -> None:
    state, _ = dealt(EXAMPLE)
    state = take(state, 3)
    assert state.leader == 3
    assert state.must_lead == "AS"
    assert GAME.legal_actions(state, 3) == [{"type": "play", "card": "AS"}, {"type": "take_left"}]
    assert (
        refused(state, 3, {"type": "play", "card": "KS"}) == "you must lead AS to the first trick"
    )
    state = play(state, 3, "AS")
    assert state.turn == 1  # seat 0 is out


def test_take_left_skips_players_who_are_out() -> None:
    state = position({0: "2H 3H", 2: "4H 5H", 3: "6H"}, leader=3)
    state = take(state, 0)
    assert hand(state, 0) == {"2H", "3H", "4H", "5H"}
    assert state.out == ((1,), (2,))


def test_take_left_during_a_trick_is_refused() -> None:
    state = after_first_trick()
    state = play(state, 0, "8H")
    assert GAME.legal_actions(state, 2) == []
    assert GAME.to_act(state) == [1]
    assert refused(state, 2, {"type": "take_left"}) == (
        "you may take the left hand only between tricks, not during a trick"
    )
    assert "unexpected field(s)" in refused(after_first_trick(), 2, {"type": "take_left", "x": 0})


def test_only_the_blind_draw_is_a_chance_move() -> None:
    state = after_first_trick()
    assert refused(state, 0, {"type": "play", "card": "8H"}, chance=True) == (
        "only the blind draw from the discard is a chance move"
    )
    assert refused(state, 0, {"type": "draw_discard", "card": "AS"}, chance=True) == (
        "no blind draw from the discard is due now"
    )


# -- timeout, views, record ------------------------------------------------------


def test_the_timeout_plays_the_lowest_legal_card_and_never_takes() -> None:
    state = position({0: "2D 5H 2S 9C", 1: "3D", 2: "4D"}, leader=0)
    rng = random.Random(0)
    assert GAME.timeout_action(state, 0, rng) == {"type": "play", "card": "2S"}
    with pytest.raises(ValueError):
        GAME.timeout_action(state, 1, rng)  # seat 1 may only take a hand: no timeout
    state = position({0: "2D 5H 2S 9C", 1: "3D 2C AD", 2: "4D"}, leader=0)
    state = play(state, 0, "2D")
    assert GAME.timeout_action(state, 1, rng) == {"type": "play", "card": "3D"}


def test_views_hide_other_hands_and_the_discard() -> None:
    state = after_first_trick()
    state = play(state, 0, "8H")
    view = GAME.view(state, 1)
    # Sorted by suit (S H D C), then rank.
    assert view["hand"] == ["JS", "4H", "5H", "6H", "QH", "6D", "7D", "8D", "7C", "8C", "9C", "TC"]
    assert view["hand_sizes"] == [11, 12, 12, 12]
    assert view["trick"] == [{"seat": 0, "card": "8H"}]
    assert view["led_suit"] == "H"
    assert view["leader"] == 0
    assert view["turn"] == 1
    assert view["discard_size"] == 4
    assert view["out"] == []
    assert view["waiting_for"] == [1]
    spectator = GAME.view(state, None)
    assert "hand" not in spectator
    assert spectator["legal_actions"] == []
    text = repr(spectator)
    for card in state.discard:
        assert card not in text
    for seat in (0, 2, 3):
        for card in state.hands[seat]:
            assert card not in repr(view)
    full = GAME.full_view(state)
    assert sorted(full["hidden"]["discard"]) == sorted(state.discard)
    assert [len(full["hidden"][f"seat:{s}"]) for s in range(4)] == [11, 12, 12, 12]


def test_the_forced_lead_is_named_to_its_holder_only() -> None:
    state, _ = dealt(EXAMPLE)
    assert GAME.view(state, 0)["must_lead"] == "AS"
    spectator = GAME.view(state, None)
    assert spectator["must_lead"] is None
    assert spectator["lead_forced"] is True
    assert spectator["first_trick"] is True
    assert spectator["leader"] == 0


def test_fold_of_the_recorded_events_equals_the_incremental_state() -> None:
    state, log = dealt(EXAMPLE)
    for seat, card in ((0, "AS"), (1, "QS"), (2, "TS"), (3, "3S"), (0, "8H"), (1, "QH")):
        state = play(state, seat, card, log=log)
    state = play(state, 2, "3C", log=log)
    assert GAME.fold(log) == state
    assert log[-1] == {
        "type": "move",
        "v": 1,
        "seat": 2,
        "action": {"type": "play", "card": "3C"},
        "chance": False,
    }


# -- whole games -----------------------------------------------------------------


@pytest.mark.parametrize("seats", range(3, 9))
def test_random_games_end_conserve_cards_and_accept_every_legal_action(seats: int) -> None:
    rng = random.Random(seats * 7)
    for _ in range(10):
        played = play_random(GAME, new_deal(GAME, seats, rng), rng)
        result = GAME.outcome(played.state)
        assert result is not None
        gone = [s for g in result["out"] for s in g]
        assert sorted(gone + [result["loser"]]) == list(range(seats))
        assert GAME.fold(played.events) == played.state
        # Replay, checking every legal action is accepted at each step.
        state = GAME.fold(played.events[:1])
        for event in played.events[1:]:
            assert sorted(GAME.cards(state)) == sorted(full_deck())
            chance = GAME.chance_outcomes(state)
            for seat in range(seats):
                for action in GAME.legal_actions(state, seat):
                    GAME.decide(state, seat, action)
                    assert chance is None
            if chance is not None:
                for outcome in chance[1]:
                    GAME.decide(state, chance[0], outcome, chance=True)
            state = GAME.evolve(state, event)


def test_heuristic_bots_finish_games_without_taking_hands() -> None:
    rng = random.Random(5)
    for seats in (3, 4, 7):
        bots = [make_bot("bhabhi", "heuristic") for _ in range(seats)]
        played = play_bots(GAME, new_deal(GAME, seats, rng), bots, rng)
        assert GAME.outcome(played.state) is not None
        assert all(e["action"]["type"] != "take_left" for e in played.events[1:])


def test_heuristic_bot_beats_random_bots() -> None:
    rng = random.Random(11)
    losses = 0
    games = 200
    for i in range(games):
        bots = [make_bot("bhabhi", "heuristic") if s == i % 4 else RandomBot(0.0) for s in range(4)]
        played = play_bots(GAME, new_deal(GAME, 4, rng), bots, rng)
        losses += GAME.outcome(played.state)["loser"] == i % 4  # type: ignore[index]
    assert losses / games < 0.15  # baseline 1/4
