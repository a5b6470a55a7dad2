"""The log tells the story: every move and its consequences in words, per game (no database).

Random games are played with the engine; each event is told from the views before and
after it (as :func:`tournaments.play.game_story` gives them), for a spectator and a seat.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.registry import get_game
from tournaments.presenters import presenter_for
from tournaments.templatetags.tables import describe

NAMES = ["Ann", "Bo", "Cy", "Dee", "Eve", "Fay"]


def told(kind: str, seats: int, seed: int, viewer: int | None = None) -> Iterator[dict[str, Any]]:
    """Each move of a random game: the states before and after, the payload, and its words."""
    engine = get_game(kind)
    rng = random.Random(seed)
    deck = list(engine.deck)
    rng.shuffle(deck)
    players = NAMES[:seats]
    state = engine.fold(engine.deal(seats, 0, deck))
    while not engine.is_over(state):
        chance = engine.chance_draw(state, rng)
        if chance is not None:
            seat, action = chance
            payload = engine.decide(state, seat, action, chance=True)[0]
        else:
            seat = rng.choice(engine.waiting_for(state) or engine.to_act(state))
            legal = engine.legal_actions(state, seat)
            # Taking a hand ends a Bhabhi deal fast: rarely, so tricks get played.
            plays = [a for a in legal if a["type"] != "take_left"]
            action = rng.choice(plays if plays and rng.random() > 0.03 else legal)
            payload = engine.decide(state, seat, action)[0]
        after = engine.evolve(state, payload)
        shown = engine.event_view(payload, state, after, viewer)
        text = str(
            describe(
                kind,
                shown,
                players,
                before=engine.view(state, viewer),
                after=engine.view(after, viewer),
            )
        )
        yield {"before": state, "after": after, "payload": payload, "text": text}
        state = after


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&#x27;", "'")


def test_bhabhi_names_every_pickup_with_its_count_and_every_hand_taken() -> None:
    pickups = takes = 0
    for seed in range(6):
        for e in told("bhabhi", 4, seed):
            before, action = e["before"], e["payload"]["action"]
            text = plain(e["text"])
            tochoo = (
                action["type"] == "play"
                and before.phase == "trick"
                and before.trick_number > 1
                and action["card"][1] != before.trick[0][1][1]
            )
            if tochoo:
                picker = NAMES[e["after"].leader]
                count = len(before.trick) + 1
                assert f"{picker} picks up the trick: {count} cards" in text, text
                pickups += 1
            if action["type"] == "take_left":
                victim = before.next_active(e["payload"]["seat"])
                count = len(before.hands[victim])
                mover = NAMES[e["payload"]["seat"]]
                assert f"{mover} takes the hand of {NAMES[victim]}" in text, text
                assert f": {count} cards" in text
                assert f"{NAMES[victim]} is out of the game: their hand was taken." in text
                takes += 1
            if e["after"].phase == "over":
                loser = NAMES[e["after"].loser]
                assert f"Only {loser} is left in the game" in text, text
    assert pickups > 5 and takes > 0, (pickups, takes)


def test_bhabhi_tells_a_clean_trick_and_who_leads_next() -> None:
    cleans = 0
    for e in told("bhabhi", 3, 1):
        ended = e["before"].phase == "trick" and e["after"].phase == "lead"
        if ended and "picks up" not in e["text"]:
            leader = NAMES[e["after"].leader]
            assert f"The trick goes to the discard pile; {leader} leads next." in e["text"]
            cleans += 1
    assert cleans > 0


def test_old_maid_names_whose_fan_a_card_was_drawn_from_and_hides_it_from_others() -> None:
    draws = 0
    for viewer in (None, 0):
        for e in told("old_maid", 3, 2, viewer):
            if e["payload"]["action"]["type"] != "draw":
                continue
            offerer = NAMES[e["before"].offerer]
            drawer = e["payload"]["seat"]
            text = plain(e["text"])
            assert f"{NAMES[drawer]} draws card " in text and f" of {offerer}'s fan" in text
            card = e["payload"]["action"]["card"]
            if viewer != drawer:
                assert f'data-card="{card}"' not in e["text"].split("fan", 1)[1][:80]
            draws += 1
    assert draws > 2


def test_give_and_take_tells_the_duets_that_decided_a_capture() -> None:
    captures = ties = 0
    for seed in range(3):
        for e in told("give_and_take", 3, seed):
            after = e["after"]
            if after.duets_round == e["before"].duets_round or not after.duets:
                continue
            text = plain(e["text"])
            for seat, neighbour, _, _, rv, lv, diff in after.duets:
                assert (
                    f"The duet of {NAMES[seat]} and {NAMES[neighbour]}: {rv} and {lv},"
                    f" a difference of {diff}." in text
                ), text
            if after.capturer is not None and after.phase == "place":
                assert f"{NAMES[after.capturer]} has the only smallest difference" in text
                captures += 1
            else:
                assert "is shared: no capture" in text
                ties += 1
    assert captures > 0


def test_give_away_tells_a_deadlock_with_every_count() -> None:
    presenter = presenter_for("give_away")
    outcome = {"winner": 1, "deadlock": True, "counts": [5, 2, 7]}
    text = " ".join(str(s) for s in presenter.end_sentences(outcome, {}, {}, NAMES[:3]))
    assert "Every player passed in turn: the game is blocked" in text
    for name, count in (("Ann", 5), ("Bo", 2), ("Cy", 7)):
        assert f"{name} has {count} cards left." in text
    assert "Bo wins with the fewest cards" in text
    won = presenter.end_sentences({"winner": 0}, {}, {}, NAMES[:2])
    assert "Ann has played every card of their stack" in str(won[0])


@pytest.mark.parametrize("kind,seats", [("old_maid", 3), ("bhabhi", 3), ("give_and_take", 2)])
def test_who_goes_out_and_why_the_game_ended_are_told(kind: str, seats: int) -> None:
    events = list(told(kind, seats, 4))
    last = plain(events[-1]["text"])
    assert "the game is over" in last.lower(), last
    outs = sum(plain(e["text"]).count("is out of the game") for e in events)
    assert outs >= 1
